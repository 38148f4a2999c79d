import { Fragment } from 'preact';
import { api, href, must, rowIdOf } from '../../api/client';
import { useLoad } from '../../ui/load';
import { Loading, Page, Time } from '../../ui/page';
import './memory.css';
import { Table } from '../../ui/table';
import { Relationships } from './relationships';
import { EventList } from './results';

const shown = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** One entity as its links made it: what finds it, what is known of it, what it relates to, its events. */
export default function EntityPage({ org, ...props }: { org: string; entityId: string }) {
  const entityId = rowIdOf(props.entityId);
  const loaded = useLoad(
    () => must(api.GET('/api/{org}/entities/{entityId}', { params: { path: { org, entityId } } })),
    [org, entityId],
  );
  const entity = loaded.data?.entity;
  return (
    <Page
      title={entity ? (entity.title ?? `Entity ${entity.id}`) : `Entity ${props.entityId}`}
      actions={
        <a class="button secondary" href={href(`/orgs/${org}/memory?entityId=${props.entityId}`)}>
          Search its events
        </a>
      }
    >
      <Loading loaded={loaded}>
        {({ entity }) => (
          <>
            <dl class="facts">
              <dt>Entity id</dt>
              <dd class="mono">{entity.id}</dd>
              <dt>Type</dt>
              <dd>{entity.entityType}</dd>
              <dt>Known since</dt>
              <dd>
                <Time at={entity.createdAt} />
              </dd>
              <dt>Updated</dt>
              <dd>
                <Time at={entity.updatedAt} />
              </dd>
            </dl>

            <h2>Identities</h2>
            {entity.identities.length === 0 ? (
              <p>None: no identity finds this entity.</p>
            ) : (
              <Table head={['Namespace', 'Value']}>
                {entity.identities.map((identity) => (
                  <tr key={`${identity.namespace}:${identity.value}`}>
                    <td class="mono">{identity.namespace}</td>
                    <td class="mono">{identity.value}</td>
                  </tr>
                ))}
              </Table>
            )}

            <h2>Traits</h2>
            {Object.keys(entity.traits).length === 0 ? (
              <p>None.</p>
            ) : (
              <dl class="facts">
                {Object.entries(entity.traits).map(([name, value]) => (
                  <Fragment key={name}>
                    <dt>{name}</dt>
                    <dd>{shown(value)}</dd>
                  </Fragment>
                ))}
              </dl>
            )}

            <h2>Relationships</h2>
            <Relationships org={org} entityId={entityId} />
          </>
        )}
      </Loading>
      {entity ? <EventList org={org} filters={{ entityId: props.entityId }} heading="Linked events" /> : null}
    </Page>
  );
}
