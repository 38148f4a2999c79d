import { useState } from 'preact/hooks';
import { api, must } from '../../api/client';
import { useSession } from '../../session';
import { ProblemNote } from '../../ui/problem';
import { Countdown } from './countdown';
import { QrCode } from './qr';
import type { Artifact } from './types';

type Prompt = Extract<Artifact, { type: 'prompt' }>;

/**
 * A prompt's fields, posted together as its signal: the object the connector's `awaitSignal`
 * resolves to. What was typed (a password, a one-time code) is dropped once it is sent.
 */
function PromptForm(props: { org: string; runId: number; artifact: Prompt }) {
  const { artifact } = props;
  const { can } = useSession();
  const [values, setValues] = useState<Record<string, string>>({});
  const [sent, setSent] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      await must(
        api.POST('/api/{org}/auth-runs/{runId}/signals/{name}', {
          params: { path: { org: props.org, runId: props.runId, name: artifact.submitSignal } },
          body: values,
        }),
      );
      setValues({});
      setSent(true);
    } catch (failure) {
      setError(failure as Error);
    }
  };
  if (!can('write')) return <p class="hint">Someone who may write answers this form.</p>;
  if (sent) return <p role="status">Sent: waiting for the connector…</p>;
  return (
    <form onSubmit={submit} aria-label="The connector asks">
      {artifact.fields.map((field) => {
        const id = `prompt-${props.runId}-${field.key}`;
        const common = {
          id,
          required: field.required === true,
          value: values[field.key] ?? '',
          onInput: (event: Event) =>
            setValues((before) => ({ ...before, [field.key]: (event.target as HTMLInputElement).value })),
        };
        return (
          <div key={field.key}>
            <label for={id}>
              {field.label || field.key}
              {field.required ? ' (required)' : ''}
            </label>
            {field.kind === 'password' ? (
              <input type="password" autocomplete="current-password" {...common} />
            ) : (
              <input
                type="text"
                inputMode={field.kind === 'otp' ? 'numeric' : undefined}
                autocomplete={field.kind === 'otp' ? 'one-time-code' : 'off'}
                {...common}
              />
            )}
          </div>
        );
      })}
      <ProblemNote error={error} />
      <button type="submit">Send</button>
    </form>
  );
}

const expiry = (expiresAt: string | undefined) => {
  const at = expiresAt ? Date.parse(expiresAt) : Number.NaN;
  return Number.isNaN(at) ? null : <Countdown until={at} what="before it expires" />;
};

/** What the connector shows the person now: each kind of the SDK's interactive artifacts. */
export function ArtifactView(props: { org: string; runId: number; artifact: Artifact }) {
  const { artifact } = props;
  switch (artifact.type) {
    case 'qr':
      return (
        <figure class="artifact artifact-qr">
          <QrCode value={artifact.value} label={artifact.instructions ?? 'A QR code to scan'} />
          <figcaption>{artifact.instructions ?? 'Scan this code.'}</figcaption>
          {expiry(artifact.expiresAt)}
        </figure>
      );
    case 'code':
      return (
        <div class="artifact artifact-code">
          <p>{artifact.instructions ?? 'Enter this code where the service asks for it:'}</p>
          <output class="code-shown mono" aria-label="The code">
            {artifact.value}
          </output>
          {expiry(artifact.expiresAt)}
        </div>
      );
    case 'redirect':
      return (
        <div class="artifact artifact-redirect">
          <p>{artifact.instructions ?? 'Sign in on the service’s page; it sends you back when done.'}</p>
          <a
            class="button"
            href={artifact.url}
            {...(artifact.mode === 'popup' ? { target: '_blank', rel: 'noopener noreferrer' } : {})}
          >
            Open {new URL(artifact.url).host}
          </a>
        </div>
      );
    case 'prompt':
      return (
        <div class="artifact artifact-prompt">
          {artifact.instructions ? <p>{artifact.instructions}</p> : null}
          <PromptForm org={props.org} runId={props.runId} artifact={artifact} />
        </div>
      );
    case 'status':
      return (
        <p class="artifact artifact-status" role="status">
          {artifact.message}
        </p>
      );
  }
}
