import { useState } from 'preact/hooks';

/**
 * A token's secret right after it was made: the only time anyone sees it. It lives in this
 * component's state alone, so leaving the page or reloading it loses it for good.
 */
export function NewTokenSecret(props: { name: string; secret: string; onDone: () => void }) {
  const [copied, setCopied] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.secret);
      setCopied('Copied.');
    } catch {
      setCopied('Could not copy: select the token and copy it.');
    }
  };
  return (
    <section class="notice new-token" aria-labelledby="new-token-title">
      <h3 id="new-token-title">Token {props.name} created</h3>
      <p>
        <strong>Copy it now: it is shown this once and cannot be shown again.</strong> svc keeps only its
        hash.
      </p>
      <label for="new-token-secret">Token secret</label>
      <div class="new-token-row">
        <input
          id="new-token-secret"
          class="mono"
          readOnly
          value={props.secret}
          onFocus={(e) => (e.target as HTMLInputElement).select()}
        />
        <button type="button" onClick={copy}>
          Copy
        </button>
        <button type="button" class="secondary" onClick={props.onDone}>
          Done
        </button>
      </div>
      <p class="hint" role="status">
        {copied}
      </p>
    </section>
  );
}
