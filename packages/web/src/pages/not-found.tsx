import { href } from '../api/client';
import { Page } from '../ui/page';

export function NotFound() {
  return (
    <Page title="Not found">
      <p>
        No page of the console is at this address. <a href={href('/')}>Go to the start</a>.
      </p>
    </Page>
  );
}
