import { ErrorNotice, Loading } from './components.js';

/** What is not there yet: why it could not be read, or else that it is being read. */
export function LoadingOrError(props: { error: unknown; label?: string }) {
  return props.error ? <ErrorNotice error={props.error} /> : <Loading label={props.label} />;
}
