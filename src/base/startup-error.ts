/** A problem that stops start-up: bad configuration, a broken fixture or preset file. */
export class StartupError extends Error {
  override name = 'StartupError';
}
