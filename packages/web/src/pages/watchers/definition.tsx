import { api, must } from '../../api/client';
import { useLoad } from '../../ui/load';
import { Loading } from '../../ui/page';

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** What `svc apply` declared: the prompt, where its events come from, the shape of its result. */
export function WatcherDefinition({ org, slug }: { org: string; slug: string }) {
  const loaded = useLoad(
    () =>
      must(
        api.POST('/api/{org}/operations/manage_entity_schema', {
          params: { path: { org } },
          body: { action: 'list', kind: 'watcher' },
        }),
      ),
    [org],
  );
  return (
    <details class="watcher-definition">
      <summary>Definition (written by svc apply)</summary>
      <Loading loaded={loaded}>
        {(data) => {
          const item = ('watchers' in data ? (data.watchers ?? []) : []).find((w) => w.slug === slug);
          if (!item) return <p>Not found in the memory model.</p>;
          return (
            <>
              <h3>Prompt</h3>
              <pre>{item.prompt}</pre>
              {item.description ? <p>{item.description}</p> : null}
              <h3>Sources</h3>
              {item.sources?.length ? <pre>{json(item.sources)}</pre> : <p>Every event of the org.</p>}
              {item.extraction_schema ? (
                <>
                  <h3>Result schema</h3>
                  <pre>{json(item.extraction_schema)}</pre>
                </>
              ) : null}
            </>
          );
        }}
      </Loading>
    </details>
  );
}
