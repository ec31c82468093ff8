import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Resource<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  /** Loads again (after a change), keeping the current data shown meanwhile. */
  reload: () => void;
}

/**
 * Loads `load()` when `keys` change (showing nothing of the previous keys meanwhile) and on
 * reload() (keeping the current data shown). An answer that arrives after the keys moved on (a
 * fast click through folders) is dropped, so an older answer never replaces a newer one.
 */
export function useResource<T>(load: () => Promise<T>, keys: unknown[]): Resource<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true,
  });
  const [generation, setGeneration] = useState(0);
  const loadedKeys = useRef<string | undefined>(undefined);
  const keyText = JSON.stringify(keys);
  useEffect(() => {
    let current = true;
    const sameKeys = loadedKeys.current === keyText;
    loadedKeys.current = keyText;
    setState((previous) => (sameKeys ? { ...previous, loading: true } : { data: undefined, error: undefined, loading: true }));
    load().then(
      (data) => current && setState({ data, error: undefined, loading: false }),
      (error: unknown) => current && setState((previous) => ({ data: previous.data, error, loading: false })),
    );
    return () => {
      current = false;
    };
  }, [keyText, generation]);
  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  // The first render after the keys change, before the effect runs, shows no stale data either.
  const stale = loadedKeys.current !== undefined && loadedKeys.current !== keyText;
  return stale ? { data: undefined, error: undefined, loading: true, reload } : { ...state, reload };
}
