import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { ConsoleSession } from '../auth/session.js';

export const SessionContext = createContext<ConsoleSession | undefined>(undefined);

/** The signed-in person's session; every view below the shell has one. */
export function useSession(): ConsoleSession {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in console');
  return session;
}
