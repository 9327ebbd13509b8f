/**
 * The OpenAPI building blocks the declarations share: a JSON content object, a reference to
 * a reusable response header (components.headers, registered in openapi.ts), and the headers
 * on every answer of the partnership API (X-Request-Id, and in the sandbox document the
 * X-Sandbox-* headers); and the type of a document walked as plain data.
 */
import type { z } from '@hono/zod-openapi';
import type { HeaderComponent } from './headers.js';

export const json = <T extends z.ZodType>(schema: T) => ({ content: { 'application/json': { schema } } });

export const header = (name: HeaderComponent) => ({ $ref: `#/components/headers/${name}` });

export const commonHeaders = {
  'X-Request-Id': header('XRequestId'),
  'X-Sandbox-Warning': header('XSandboxWarning'),
  'X-Sandbox-Scenario-Applied': header('XSandboxScenarioApplied'),
  'X-Sandbox-Chaos': header('XSandboxChaos'),
};

/** A JSON document, walked and rewritten as plain data. */
// biome-ignore lint/suspicious/noExplicitAny: OpenAPI documents are walked as plain JSON
export type OpenApiDocument = Record<string, any>;
