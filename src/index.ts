/** The package's API (`import { … } from 'partnership-sandbox'`): re-exports only. */

export { StartupError } from './base/startup-error.js';
export * from './client/control-client.js';
export * from './drift/index.js';
export { type RunningSandbox, type SandboxLogger, type SandboxOptions, startSandbox } from './start.js';
