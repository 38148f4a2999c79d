import type { ProjectProblem } from '../project/index.js';
import type { ApiClient } from '../session/client.js';

/**
 * Variables a project references that are unset here, checked against the org's secrets, which
 * the server resolves a reference from first (DESIGN.md section 6): `svc secrets set X` is a
 * complete answer to "X is not set", whatever this shell holds. Only names are read, never values.
 */
export async function checkAgainstOrgSecrets(
  client: ApiClient,
  org: string,
  unset: ProjectProblem[],
): Promise<{ fromOrg: string[]; missing: ProjectProblem[] }> {
  const { secrets } = await client.request<{ secrets: { name: string }[] }>('GET', `/api/${org}/secrets`);
  const names = new Set(secrets.map((secret) => secret.name));
  const fromOrg = unset.filter((p) => names.has(p.variable as string)).map((p) => p.variable as string);
  const missing = unset
    .filter((p) => !names.has(p.variable as string))
    .map((p) => ({
      ...p,
      message: `${p.message}, and org ${org} has no secret ${p.variable} either`,
      hint: [
        `store it in the org: svc secrets set ${p.variable} --org ${org}, or set it here`,
        ...(p.hint ? [p.hint] : []),
      ].join('; '),
    }));
  return { fromOrg, missing };
}
