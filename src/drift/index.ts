/** Recordings and drift (docs/drift.md): the programmatic API the package exports. */
export type { Difference } from './compare.js';
export { RecordingError } from './har.js';
export { type Recorder, type RecorderOptions, startRecorder } from './proxy.js';
export { verifyRecording } from './replay.js';
export { closingLine, reportJson, reportJUnit, reportLines } from './verify-report.js';
export type { EntryResult, Outcome, VerifyOptions, VerifyResult, VerifyTotals } from './verify-result.js';
