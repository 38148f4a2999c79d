import { useState } from 'preact/hooks';
import { api, must } from '../../api/client';
import { ProblemNote } from '../../ui/problem';
import { hasFields, ObjectInput } from './object-input';
import type { Feed, JsonSchema } from './types';

/**
 * A feed's config, checked by the server against the feed's configSchema. A feed created paused
 * for want of config starts once it is given one.
 */
export function FeedConfig(props: {
  org: string;
  feed: Feed;
  schema: JsonSchema | undefined;
  onSaved: () => void;
}) {
  const { feed } = props;
  const [config, setConfig] = useState<Record<string, unknown> | Error>(feed.config);
  const [error, setError] = useState<Error | null>(null);
  const waiting = feed.status === 'paused' && feed.lastError?.startsWith('needs config') === true;
  if (!hasFields(props.schema)) return null;
  const save = async (event: Event) => {
    event.preventDefault();
    if (config instanceof Error) return setError(config);
    setError(null);
    try {
      await must(
        api.PATCH('/api/{org}/feeds/{feedId}', {
          params: { path: { org: props.org, feedId: feed.id } },
          body: { config },
        }),
      );
      props.onSaved();
    } catch (failure) {
      setError(failure as Error);
    }
  };
  return (
    <details open={waiting}>
      <summary>Config</summary>
      <form onSubmit={save}>
        <ObjectInput
          schema={props.schema}
          id={`feed-${feed.id}-config`}
          label="Config"
          initial={feed.config}
          onChange={setConfig}
        />
        <ProblemNote error={error} />
        <button type="submit">Save config</button>
      </form>
    </details>
  );
}
