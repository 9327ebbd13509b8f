/**
 * The sandbox's Docker image in a Node test suite with Testcontainers (npm `testcontainers`):
 * a GenericContainer that publishes the port on a free host port and waits until
 * `GET /__sandbox/health` answers 200. test/image/testcontainers.test.ts uses it against the
 * image CI builds; copy it into your own suite (docs/testcontainers.md).
 *
 *   const sandbox = await startSandboxContainer('partnership-sandbox:latest');
 *   // ... point the integration at sandbox.url, drive sandbox.control ...
 *   await sandbox.stop();
 */
import { GenericContainer, type StartedTestContainer, Wait } from 'testcontainers';
import { type ControlClient, createControlClient } from '../../src/index.js'; // yours: 'partnership-sandbox'

export interface SandboxContainer {
  /** The base URL of the partnership API and the control plane, e.g. http://localhost:32768 */
  url: string;
  control: ControlClient;
  container: StartedTestContainer;
  stop(): Promise<void>;
}

export async function startSandboxContainer(
  image: string,
  options: { adminToken?: string; env?: Record<string, string>; labels?: Record<string, string> } = {},
): Promise<SandboxContainer> {
  const env = { ...options.env, ...(options.adminToken ? { SANDBOX_ADMIN_TOKEN: options.adminToken } : {}) };
  const container = await new GenericContainer(image)
    .withExposedPorts(4010)
    .withEnvironment(env)
    .withLabels(options.labels ?? {})
    // health answers 200 once the server accepts traffic, and needs no admin token
    .withWaitStrategy(Wait.forHttp('/__sandbox/health', 4010).forStatusCode(200))
    .withStartupTimeout(30_000)
    .start();
  const url = `http://${container.getHost()}:${container.getMappedPort(4010)}`;
  return {
    url,
    control: createControlClient(url, options.adminToken ? { adminToken: options.adminToken } : {}),
    container,
    // docker stop: the sandbox drains in-flight requests and exits 0
    stop: async () => {
      await container.stop();
    },
  };
}
