/** Connector code that could not be run: the reason, written for the person installing it. */
export class ConnectorCodeError extends Error {
  override name = 'ConnectorCodeError';
}
