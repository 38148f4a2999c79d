/**
 * The page a person lands on after the provider's consent screen: what happened, in words, and
 * what to do next. Self-contained (no script, no external resource) under a CSP that allows none.
 */

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] as string,
  );

export interface CallbackPage {
  ok: boolean;
  title: string;
  /** Sentences, each its own paragraph. */
  lines: string[];
}

export const CALLBACK_PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

export function renderCallbackPage(page: CallbackPage): string {
  const colour = page.ok ? '#0a6b2f' : '#8a1c1c';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)} - svc</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}
h1{font-size:1.4rem;color:${colour}}code{background:#f2f2f2;padding:0 .25rem;border-radius:3px}</style>
</head><body><main><h1>${escapeHtml(page.title)}</h1>
${page.lines.map((line) => `<p>${escapeHtml(line).replace(/`([^`]+)`/g, '<code>$1</code>')}</p>`).join('\n')}
</main></body></html>
`;
}
