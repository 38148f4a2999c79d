import { useLocation } from 'preact-iso';
import { href } from '../../api/client';
import { Page } from '../../ui/page';
import { FilterForm } from './filter-form';
import { type Filters, filtersOf, searchOf } from './filters';
import { EntityLookup } from './lookup';
import './memory.css';
import { MemoryModel } from './model';
import { EventList, SearchResults } from './results';

/** What the org's connectors, agents and watchers collected: listed, filtered, searched. */
export default function MemoryPage({ org }: { org: string }) {
  const { query, route } = useLocation();
  const filters = filtersOf(query);
  const key = searchOf(filters);
  const go = (next: Filters) => route(href(`/orgs/${org}/memory${searchOf(next)}`), true);
  return (
    <Page title="Memory">
      {/* Keyed by the URL's query: going back or following a link resets what the form shows. */}
      <FilterForm key={key} org={org} filters={filters} onSubmit={go} />
      {filters.q ? (
        <SearchResults org={org} filters={filters} />
      ) : (
        <EventList org={org} filters={filters} heading={key ? 'Events that match the filters' : 'Events'} />
      )}
      <EntityLookup org={org} />
      <MemoryModel org={org} />
    </Page>
  );
}
