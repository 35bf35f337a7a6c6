import { tracesWanted } from './tracing.js';

/**
 * Loaded before the server: `node --import ./dist/telemetry/preload.js dist/main.js` (`npm start` and the Dockerfile
 * run it so). When the environment asks for traces (see tracesWanted) it starts OpenTelemetry (telemetry/otel.ts)
 * before any module the server loads, so that `pg` is instrumented when it is first required; otherwise it imports
 * nothing more, and the server runs as it would without it.
 */
if (tracesWanted(process.env)) {
  const { startTracing } = await import('./otel.js');
  startTracing();
}
