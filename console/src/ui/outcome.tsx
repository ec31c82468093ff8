import { ErrorNotice } from './components.js';

/** What a change did, or why it was refused. */
export type OutcomeOf = { message: string } | { error: unknown } | undefined;

/** A change's outcome in words: a success announced politely, a refusal at once. */
export function Outcome(props: { outcome: OutcomeOf }) {
  const { outcome } = props;
  if (!outcome) return null;
  if ('error' in outcome) return <ErrorNotice error={outcome.error} />;
  return (
    <p class="notice success" role="status">
      {outcome.message}
    </p>
  );
}
