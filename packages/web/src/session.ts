import { createContext } from 'preact';
import { useContext } from 'preact/hooks';

type Scope = 'read' | 'write' | 'messages' | 'admin';

export interface Session {
  id: string;
  kind: 'token' | 'admin_password';
  org: string;
  scopes: Scope[];
  token: { id: string; name: string } | null;
  expiresAt: string;
  csrfToken: string;
}

export interface SessionContext {
  session: Session;
  /** Whether the session's credential has this scope (admin implies every scope, write read). */
  can(scope: Scope): boolean;
  /** The deployment admin (the admin password): may see every org. */
  isAdmin: boolean;
  signOut(): Promise<void>;
  /** Moves an admin's session to another org (the org-less message routes act in it). */
  moveTo(org: string): Promise<void>;
}

export const SessionContext = createContext<SessionContext | null>(null);

export function useSession(): SessionContext {
  const context = useContext(SessionContext);
  if (!context) throw new Error('useSession outside a signed-in page');
  return context;
}
