import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, href, must } from '../../api/client';
import { ProblemNote } from '../../ui/problem';
import {
  type DefinitionBody,
  DefinitionTextError,
  definitionFromUrl,
  parseDefinitionText,
} from './definition-text';

type From = 'openapi' | 'mcp' | 'text';

const FROM_LABELS: Record<From, string> = {
  openapi: 'An OpenAPI description (URL)',
  mcp: 'An MCP server (URL)',
  text: 'A definition (JSON or YAML)',
};

const EXAMPLE = `key: petstore
name: Petstore
version: 1.0.0
openapiConfig:
  specUrl: https://api.example/openapi.yaml
  includeTags: [pets]
authSchema:
  methods:
    - type: env_keys
      fields: [{ key: api_key, secret: true }]
requiresApproval:
  deletePet: true`;

/**
 * A connector without code (admin): from a URL with a key and a name, or a pasted definition, as
 * `svc connector install petstore.yaml` takes it. The server reads the upstream and generates the
 * actions; the connector's page that opens next shows them.
 */
export function InstallDefinitionForm({ org }: { org: string }) {
  const { route } = useLocation();
  const [from, setFrom] = useState<From>('openapi');
  const [fields, setFields] = useState({ key: '', name: '', url: '' });
  const [text, setText] = useState('');
  const [error, setError] = useState<Error | null>(null);
  // Where the server's problems are in the pasted text, for the text that was sent.
  const [where, setWhere] = useState<((path: string) => string | undefined) | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const field = (name: keyof typeof fields) => ({
    id: `definition-${name}`,
    value: fields[name],
    onInput: (event: Event) =>
      setFields((before) => ({ ...before, [name]: (event.target as HTMLInputElement).value })),
  });

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      setWhere(undefined);
      let body: DefinitionBody;
      if (from === 'text') {
        const { locate, ...parsed } = await parseDefinitionText(text);
        setWhere(() => locate);
        body = parsed;
      } else body = definitionFromUrl(from, fields);
      const answer = await must(api.POST('/api/{org}/connectors', { params: { path: { org } }, body }));
      route(href(`/orgs/${org}/connectors/${encodeURIComponent(answer.connector.connectorKey)}`));
    } catch (failure) {
      setError(failure as Error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card connect-form" onSubmit={submit} aria-labelledby="definition-title">
      <h3 id="definition-title">Install from a definition</h3>
      <p class="hint">
        A connector without code: its actions are read from an OpenAPI description or an MCP server's tools.
        Operations other than GET and HEAD, and tools not marked read-only, need approval.
      </p>
      <fieldset>
        <legend>From</legend>
        {(Object.keys(FROM_LABELS) as From[]).map((option) => (
          <div class="field-check" key={option}>
            <input
              type="radio"
              name="definition-from"
              id={`definition-from-${option}`}
              checked={from === option}
              onChange={() => {
                setFrom(option);
                setError(null);
              }}
            />
            <label for={`definition-from-${option}`}>{FROM_LABELS[option]}</label>
          </div>
        ))}
      </fieldset>
      {from === 'text' ? (
        <>
          <label for="definition-text">Definition</label>
          <p class="hint" id="definition-text-hint">
            The key, name and version, with openapiConfig (specUrl, or the description as spec) or mcpConfig
            (upstreamUrl); requiresApproval beside them says which actions need approval.
          </p>
          <textarea
            id="definition-text"
            class="mono definition-text"
            rows={14}
            spellcheck={false}
            placeholder={EXAMPLE}
            aria-describedby="definition-text-hint"
            value={text}
            onInput={(event) => setText((event.target as HTMLTextAreaElement).value)}
          />
        </>
      ) : (
        <>
          <label for="definition-url">{from === 'openapi' ? 'Description URL' : 'MCP server URL'}</label>
          <input
            {...field('url')}
            type="url"
            required
            placeholder={from === 'openapi' ? 'https://api.example/openapi.yaml' : 'https://mcp.example/mcp'}
          />
          <label for="definition-key">Key</label>
          <input {...field('key')} required aria-describedby="definition-key-hint" />
          <p class="hint" id="definition-key-hint">
            Lowercase letters, digits, - and _: the connector's tools are named key.action.
          </p>
          <label for="definition-name">Name</label>
          <input {...field('name')} required />
        </>
      )}
      {error instanceof DefinitionTextError ? (
        <div class="problem" role="alert">
          <p>
            <strong>The definition could not be read</strong>: {error.message}
          </p>
        </div>
      ) : (
        <ProblemNote error={error} where={from === 'text' ? where : undefined} />
      )}
      <button type="submit" disabled={busy}>
        {busy ? 'Installing…' : 'Install definition'}
      </button>
    </form>
  );
}
