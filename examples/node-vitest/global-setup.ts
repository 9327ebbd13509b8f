// Vitest global setup: one sandbox for the whole run, its URL handed to every test file.
import { type RunningSandbox, startSandbox } from 'partnership-sandbox';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    sandboxUrl: string;
  }
}

let sandbox: RunningSandbox;

export async function setup(project: TestProject) {
  sandbox = await startSandbox(); // a free port, an in-memory store
  project.provide('sandboxUrl', sandbox.url);
}

export async function teardown() {
  await sandbox.stop();
}
