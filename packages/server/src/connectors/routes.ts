import { AUTH_METHOD_TYPES, type ConnectorDefinition } from '@svc/connector-sdk';
import type { Pool } from 'pg';
import { z } from 'zod';
import { orgOf } from '../auth/authenticate.js';
import type { DeploymentEgress } from '../egress/deployment.js';
import { iso, orgParams, problemResponse, problemResponses } from '../http/common.js';
import { notFound, ProblemError } from '../http/problem.js';
import type { App } from '../http/types.js';
import { codelessRoutes, installCodeless } from './codeless/routes.js';
import { bundledDefinition, type ConnectorOrigin, inspectConnector } from './install.js';
import { getInstall, type InstallRow, installedVersions, listInstalls, upsertInstall } from './queries.js';
import { BUNDLED_CONNECTORS, sandboxRefusal } from './sandbox.js';

const tags = ['connectors'];

const entityLinkOverrides = z
  .record(
    z.string().min(1).max(200),
    z.strictObject({
      disable: z.boolean().optional(),
      retargetEntityType: z.string().min(1).max(200).optional(),
      autoCreate: z.boolean().optional(),
      maskIdentities: z.array(z.string().min(1).max(200)).max(100).optional(),
    }),
  )
  .describe("The org's overrides of the connector's entity links, by rule");

const approvalOverrides = z
  .record(z.string().min(1).max(200), z.boolean())
  .describe(
    "A connector without code: whether each action (by key) needs approval, over what the upstream says (an MCP tool's annotations, an operation's HTTP method); kept across refreshes",
  );

const generatedSchema = z
  .object({
    kind: z.enum(['openapi', 'mcp']),
    refreshedAt: z.string().describe('when the upstream was last read'),
    skipped: z
      .array(z.object({ operation: z.string(), reason: z.string() }))
      .describe('operations or tools the upstream has that did not become actions, and why'),
    warning: z
      .string()
      .nullable()
      .describe('why the upstream could not be read in full (it wants credentials)'),
    approvalOverrides: approvalOverrides,
  })
  .nullable()
  .describe('A connector without code: what svc read from its upstream; null for connectors with code');

const installBody = z.union([
  z.strictObject({
    package: z.string().min(1).max(100).describe('a bundled connector: "rss" or "code-host"'),
    entityLinkOverrides: entityLinkOverrides.optional(),
  }),
  z.strictObject({
    definition: z
      .record(z.string(), z.unknown())
      .describe(
        'a ConnectorDefinition without code: with mcpConfig (an MCP server over streamable HTTP) or openapiConfig (an OpenAPI description); its actions are read from there',
      ),
    requiresApproval: approvalOverrides.optional(),
    entityLinkOverrides: entityLinkOverrides.optional(),
  }),
  z.strictObject({
    source: z
      .string()
      .min(1)
      .max(512 * 1024)
      .describe("the connector's ES module; TypeScript allowed; it may import @svc/connector-sdk"),
    entityLinkOverrides: entityLinkOverrides.optional(),
  }),
]);

const installSchema = z.object({
  connectorKey: z.string(),
  name: z.string(),
  version: z.string(),
  description: z.string().nullable(),
  package: z.string().nullable().describe('the bundled connector it came from; null for posted source'),
  definition: z.record(z.string(), z.unknown()).describe('the ConnectorDefinition, as validated'),
  entityLinkOverrides,
  generated: generatedSchema,
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const toInstall = (row: InstallRow) => ({
  connectorKey: row.connector_key,
  name: row.definition.name,
  version: row.version,
  description: row.definition.description ?? null,
  package: row.package,
  definition: row.definition as unknown as Record<string, unknown>,
  entityLinkOverrides: row.entity_link_overrides,
  generated: row.generated
    ? {
        kind: row.generated.kind,
        refreshedAt: row.generated.refreshedAt,
        skipped: row.generated.skipped,
        warning: row.generated.warning,
        approvalOverrides: row.approval_overrides,
      }
    : null,
  createdAt: iso(row.created_at),
  updatedAt: iso(row.updated_at),
});

const connectorPackageSchema = z.object({
  package: z.string().describe('what `POST /api/{org}/connectors` takes as `package`'),
  key: z.string().describe("its definition's key: the `connectorKey` it is installed under"),
  name: z.string(),
  description: z.string().nullable(),
  version: z.string().describe('the version installing it now gives'),
  authMethods: z
    .array(z.enum(AUTH_METHOD_TYPES))
    .describe(
      'the types of the auth methods its definition declares, in its order; empty when it declares none',
    ),
  installed: z
    .boolean()
    .describe('the org has a connector of this key (installing the package again upgrades it in place)'),
  installedVersion: z.string().nullable().describe('the version the org has; null when not installed'),
});

/**
 * A bundled connector as a person choosing one to install sees it. Its definition is read in the
 * sandbox once per process (install.ts), so listing costs two child processes per server, once.
 */
async function connectorPackage(name: string, installed: Map<string, string>) {
  const definition = (await bundledDefinition(name)) as ConnectorDefinition;
  const installedVersion = installed.get(definition.key) ?? null;
  return {
    package: name,
    key: definition.key,
    name: definition.name,
    description: definition.description ?? null,
    version: definition.version,
    authMethods: [...new Set((definition.authSchema?.methods ?? []).map((method) => method.type))],
    installed: installedVersion !== null,
    installedVersion,
  };
}

/** What the connector routes need from the server that mounts them. */
export interface ConnectorRouteOptions {
  pool: Pool;
  /**
   * Whether connectors may be installed from posted source (SVC_CONNECTOR_SOURCE_INSTALLS): `on`,
   * run in the OS sandbox only (refused on a host without it); `unsandboxed`, run without it where
   * it is missing (development); `off` or absent, bundled connectors only. `true` is `on`.
   */
  connectorSourceInstalls?: boolean | 'off' | 'on' | 'unsandboxed';
  /** Nix packages the workers provide (SVC_CONNECTOR_NIX_PACKAGES): a connector needing others is refused. */
  connectorNixPackages?: Set<string>;
  /** What a connector without code may reach when svc reads its upstream (SVC_EGRESS_ALLOW). */
  egress: DeploymentEgress;
  /** Opens a connection's credentials, for reading an upstream's tools with them. */
  encryptionKey: Buffer;
}

export function connectorRoutes(options: ConnectorRouteOptions) {
  const nixPackages = options.connectorNixPackages ?? new Set<string>();
  return async (app: App) => {
    app.post(
      '/api/:org/connectors',
      {
        config: { auth: { scope: 'admin', org: true } },
        // Source text is larger than settings are.
        bodyLimit: 1024 * 1024,
        schema: {
          tags,
          operationId: 'installConnector',
          summary: "Install a connector in the org, or upgrade it, by its definition's key",
          description:
            'The code runs in a sandbox (a child process with time and memory limits and no server ' +
            'environment) to read its definition, which is checked with validateDefinition: every ' +
            'problem is listed. Connections and feeds of an upgraded connector stay. A `definition` ' +
            'without code (mcpConfig or openapiConfig) gets its actions from its upstream, read in the ' +
            'same sandbox under the same egress rules (SVC_EGRESS_ALLOW for private addresses).',
          params: orgParams,
          body: installBody,
          response: {
            200: z.object({ result: z.enum(['updated', 'unchanged']), connector: installSchema }),
            201: z.object({ result: z.literal('created'), connector: installSchema }),
            422: problemResponse('The code could not be loaded, or its definition is not valid'),
            429: problemResponse(
              'A definition without code: this server is reading too many upstreams; try again',
            ),
            ...problemResponses,
            403: problemResponse('Posted source is not allowed on this server, or the token is not admin'),
          },
        },
      },
      async (request, reply) => {
        const org = orgOf(request);
        if ('definition' in request.body) {
          const { definition, requiresApproval, entityLinkOverrides } = request.body;
          const { result, row } = await installCodeless(options, org.id, definition, {
            approvalOverrides: requiresApproval,
            entityLinkOverrides,
          });
          return reply.code(result === 'created' ? 201 : 200).send({ result, connector: toInstall(row) });
        }
        const { entityLinkOverrides: overrides, ...origin } = request.body;
        const installs =
          options.connectorSourceInstalls === true ? 'on' : (options.connectorSourceInstalls ?? 'off');
        if ('source' in origin && installs === 'off') {
          throw new ProblemError(
            403,
            'forbidden',
            "this server installs bundled connectors only: posted source runs on the server's hosts, so an " +
              'operator must allow it (SVC_CONNECTOR_SOURCE_INSTALLS=on), for org admins they trust',
          );
        }
        const refusal =
          'source' in origin
            ? sandboxRefusal({ timeoutMs: 0, memoryMb: 0, unsandboxedSource: installs === 'unsandboxed' }, '')
            : null;
        if (refusal) throw new ProblemError(403, 'sandbox_unavailable', refusal);
        const definition = await inspectConnector(
          origin as ConnectorOrigin,
          nixPackages,
          installs === 'unsandboxed',
        );
        const { result, row } = await upsertInstall(
          options.pool,
          org.id,
          definition,
          origin as ConnectorOrigin,
          overrides,
        );
        return reply.code(result === 'created' ? 201 : 200).send({ result, connector: toInstall(row) });
      },
    );

    await app.register(codelessRoutes(options, toInstall, installSchema));

    app.get(
      '/api/:org/connectors',
      {
        config: { auth: { scope: 'read', org: true } },
        schema: {
          tags,
          operationId: 'listConnectors',
          summary: 'The connectors installed in the org',
          description:
            'The connectors installed in the org, each with its key, version, definition (feeds, actions, credentials) and entity link overrides.',
          params: orgParams,
          response: { 200: z.object({ connectors: z.array(installSchema) }), ...problemResponses },
        },
      },
      async (request) => ({
        connectors: (await listInstalls(options.pool, orgOf(request).id)).map(toInstall),
      }),
    );

    app.get(
      '/api/:org/connector-packages',
      {
        config: { auth: { scope: 'read', org: true } },
        schema: {
          tags,
          operationId: 'listConnectorPackages',
          summary: 'The bundled connectors this server can install, and whether the org has each',
          description:
            'Each is installed with `POST /api/{org}/connectors` `{package}` (admin scope). `installed` compares ' +
            "by the definition's key: a connector of that key posted as source counts, and installing the " +
            'package replaces it. Posted source, where the server allows it, is not listed here.',
          params: orgParams,
          response: { 200: z.object({ packages: z.array(connectorPackageSchema) }), ...problemResponses },
        },
      },
      async (request) => {
        const installed = await installedVersions(options.pool, orgOf(request).id);
        return {
          packages: await Promise.all(
            Object.keys(BUNDLED_CONNECTORS)
              .sort()
              .map((name) => connectorPackage(name, installed)),
          ),
        };
      },
    );

    app.get(
      '/api/:org/connectors/:key',
      {
        config: { auth: { scope: 'read', org: true } },
        schema: {
          tags,
          operationId: 'getConnector',
          summary: 'One installed connector, with its definition',
          description:
            'The installed connector with its definition: feeds, actions, credentials it takes, and entity types it links.',
          params: orgParams.extend({ key: z.string().max(200) }),
          response: { 200: z.object({ connector: installSchema }), ...problemResponses },
        },
      },
      async (request) => {
        const row = await getInstall(options.pool, orgOf(request).id, request.params.key);
        if (!row) throw notFound(`connector "${request.params.key}"`);
        return { connector: toInstall(row) };
      },
    );
  };
}
