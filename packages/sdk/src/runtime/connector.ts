/** The spec's "Connector runtime class", and `defineConnector`, its functional form. */

import type { AuthContext, AuthResult } from '../auth/types.js';
import type { ActionDefinition, ConnectorDefinition, FeedDefinition } from '../definition/types.js';
import type { ActionContext, ActionResult, SyncContext, SyncResult } from './types.js';

/**
 * Extend it: set `definition`, implement `sync` and `execute`, and `authenticate` when the auth
 * methods include `interactive`. A read-only connector's `execute` returns `{ success: false, error }`
 * (or extend `ConnectorRuntime`, whose default does).
 */
export abstract class Connector {
  abstract readonly definition: ConnectorDefinition;
  abstract sync(ctx: SyncContext): Promise<SyncResult>;
  abstract execute(ctx: ActionContext): Promise<ActionResult>;

  /** Only connectors with an `interactive` auth method implement this. */
  authenticate(_ctx: AuthContext): Promise<AuthResult> {
    return Promise.reject(
      new Error(
        `connector "${this.definition.key}" has no interactive authentication: it does not implement authenticate()`,
      ),
    );
  }
}

/**
 * The class under the name Lobu's SDK gives it, with that SDK's default `execute`, so that
 * connectors written for it (`class Notes extends ConnectorRuntime`) build and run here unchanged,
 * a read-only one without writing `execute`. A subclass rather than `Connector` itself: there,
 * `execute` stays one that each connector writes, as the spec has it.
 */
export abstract class ConnectorRuntime extends Connector {
  /**
   * The spec's read-only connector: every action answered with a failure result, as Lobu's SDK's
   * default does, so that a connector written for it without `execute` loads and says why an
   * action fails rather than failing to load.
   */
  execute(ctx: ActionContext): Promise<ActionResult> {
    return Promise.resolve({
      success: false,
      error: `Actions not supported: connector "${this.definition.key}" has no actions (asked for "${ctx.actionKey}")`,
    });
  }
}

/** What a value lacks to be a connector (`definition`, `sync`, `execute`); empty when it is one. */
export function missingConnectorMembers(value: unknown): string[] {
  if (typeof value !== 'object' || value === null) return ['definition', 'sync', 'execute'];
  const candidate = value as Partial<Connector>;
  return [
    ...(typeof candidate.definition === 'object' && candidate.definition !== null ? [] : ['definition']),
    ...(typeof candidate.sync === 'function' ? [] : ['sync']),
    ...(typeof candidate.execute === 'function' ? [] : ['execute']),
  ];
}

/**
 * Marks the default `authenticate`. A registered symbol rather than a prototype comparison, so that
 * a connector built against another copy of the SDK (its build, our sources) is judged the same.
 */
const DEFAULT_AUTHENTICATE = Symbol.for('svc.connector-sdk.default-authenticate');
Object.defineProperty(Connector.prototype.authenticate, DEFAULT_AUTHENTICATE, { value: true });

/** Whether `authenticate` is the connector's own rather than the default that throws. */
export function implementsAuthenticate(connector: Connector): boolean {
  // A plain object `{ definition, sync, execute }` is a connector too; without one it has none.
  return typeof connector.authenticate === 'function' && !(DEFAULT_AUTHENTICATE in connector.authenticate);
}

/**
 * Duck-typed for the same reason (`instanceof` fails across two copies of the SDK), and so that a
 * plain object with `definition`, `sync` and `execute` is one: `authenticate` is optional.
 */
export function isConnector(value: unknown): value is Connector {
  return missingConnectorMembers(value).length === 0;
}

export type FeedHandler = (ctx: SyncContext) => Promise<SyncResult>;
export type ActionHandler = (ctx: ActionContext) => Promise<ActionResult>;

/** `key` may be left out: it is the feed's key in `feeds`, as in Lobu's `defineConnector`. */
export interface FeedWithHandler extends Omit<FeedDefinition, 'key'> {
  key?: string;
  sync: FeedHandler;
}

/**
 * `key` may be left out (the action's key in `actions`), and so may `requiresApproval`: then the
 * action needs approval. Lobu's `defineConnector` takes an absent one as `false`; here a connector
 * that does not say whether an action changes something is not trusted to run it unasked.
 */
export interface ActionWithHandler extends Omit<ActionDefinition, 'key' | 'requiresApproval'> {
  key?: string;
  requiresApproval?: boolean;
  execute: ActionHandler;
}

/** A definition whose feeds and actions carry their handlers, and an optional `authenticate`. */
export interface ConnectorWithHandlers extends Omit<ConnectorDefinition, 'feeds' | 'actions'> {
  feeds?: Record<string, FeedWithHandler>;
  actions?: Record<string, ActionWithHandler>;
  authenticate?: (ctx: AuthContext) => Promise<AuthResult>;
}

/**
 * A connector written as data and functions: each feed has its `sync`, each action its `execute`.
 * What it returns is a `Connector` like any other, whose `definition` is the data without them.
 */
export function defineConnector(spec: ConnectorWithHandlers): Connector {
  const { feeds, actions, authenticate, ...rest } = spec;
  const definition: ConnectorDefinition = { ...rest };
  if (feeds)
    definition.feeds = mapEntries(feeds, (key, { sync: _sync, ...feed }) => ({
      ...feed,
      key: feed.key ?? key,
    }));
  if (actions)
    definition.actions = mapEntries(actions, (key, { execute: _execute, ...action }) => ({
      ...action,
      key: action.key ?? key,
      requiresApproval: action.requiresApproval ?? true,
    }));
  class Defined extends Connector {
    readonly definition = definition;
    async sync(ctx: SyncContext): Promise<SyncResult> {
      const feed = feeds?.[ctx.feedKey];
      if (!feed) throw new Error(unknownKey('feed', ctx.feedKey, Object.keys(feeds ?? {})));
      return feed.sync(ctx);
    }
    async execute(ctx: ActionContext): Promise<ActionResult> {
      const action = actions?.[ctx.actionKey];
      if (!action)
        return { success: false, error: unknownKey('action', ctx.actionKey, Object.keys(actions ?? {})) };
      return action.execute(ctx);
    }
  }
  if (authenticate) Defined.prototype.authenticate = authenticate;
  return new Defined();
}

function mapEntries<T, U>(record: Record<string, T>, fn: (key: string, value: T) => U): Record<string, U> {
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, fn(k, v)]));
}

function unknownKey(kind: 'feed' | 'action', key: string, known: string[]): string {
  const list = known.length > 0 ? known.map((k) => `"${k}"`).join(', ') : 'none';
  return `this connector has no ${kind} "${key}" (${kind}s: ${list})`;
}
