/**
 * The sandbox drift starts in its own process when given no URL (verify) or no document
 * (record's contract check). Drift imports nothing of the app: the entry points at the top
 * (index.ts, the package's API; main.ts, the bin's record and verify) hand it how to start
 * one (startSandbox, start.ts), here.
 */
import type { ControlClient } from '../client/control-client.js';

/** What drift uses of a sandbox it started: where it is, its control plane, and how to stop it. */
export interface EmbeddedSandbox {
  readonly url: string;
  readonly control: ControlClient;
  stop(): Promise<void>;
}

let starter: (() => Promise<EmbeddedSandbox>) | undefined;

/** How drift starts its sandbox, given once by the entry point. */
export function setSandboxStarter(start: () => Promise<EmbeddedSandbox>): void {
  starter = start;
}

/** A sandbox started in this process by the entry point's starter. */
export function startEmbedded(): Promise<EmbeddedSandbox> {
  if (!starter) throw new Error('no sandbox starter: the entry point (index.ts, main.ts) gives drift one');
  return starter();
}
