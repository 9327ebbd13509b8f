/**
 * The third-party code only `record` runs: the OpenAPI response validator its contract check
 * uses (contract-check.ts: openapi-backend and ajv-formats) and the HTTP client that takes each
 * request to the upstream (proxy.ts: undici's Pool), behind this one module so that they load
 * only when recording. scripts/build.mjs bundles it on its own, as dist/openapi-validator.js,
 * which the bin and the package load by import() from there: the sandbox's start-up never
 * parses them.
 */
import addFormats from 'ajv-formats';

export { OpenAPIBackend } from 'openapi-backend';
export { buildConnector, Pool } from 'undici';

// ajv-formats is CommonJS: its plugin is the module and its `default` alike.
export const addAjvFormats: (ajv: never) => unknown = addFormats.default;
