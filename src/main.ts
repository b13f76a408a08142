/** Entry point of `npm start`: reads the environment, serves, and shuts down gracefully. */
import { ConfigError, loadConfig } from './config.js';
import { startServer } from './server.js';

async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(`mockyard: ${e.message}`);
      process.exit(2);
    }
    throw e;
  }
  const running = await startServer(config);
  running.log.info({ url: running.url }, `Mockyard listening on ${running.url}`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    running.log.info({ signal }, 'shutting down');
    running.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err) => {
  console.error('mockyard: failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
