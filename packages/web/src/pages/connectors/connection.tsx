import { Page } from '../../ui/page';

// Not built yet (issue 20): a helper fills this page in.
export default function Placeholder() {
  return (
    <Page title="connection">
      <p>This page is not built yet.</p>
    </Page>
  );
}
