/**
 * The package's API (`import { … } from 'partnership-sandbox'`): re-exports, and drift's
 * embedded sandbox (verifyRecording without a URL, a recorder's contract check) started by
 * startSandbox.
 */

export { StartupError } from './base/startup-error.js';
export * from './client/control-client.js';
export * from './drift/index.js';
export { type RunningSandbox, type SandboxLogger, type SandboxOptions, startSandbox } from './start.js';

import { setSandboxStarter } from './drift/embedded.js';
import { startSandbox } from './start.js';

setSandboxStarter(() => startSandbox());
