import { PREFIX } from './settings.js';

/**
 * `node dist/healthcheck.js`: exits 0 when the server of this container answers `GET <prefix>/livez` with 200 within
 * 2 s, else 1; the Dockerfile's HEALTHCHECK (node:20-slim has no curl). It asks the server at HOST and PORT, as the
 * server reads them (a server listening on every interface, 0.0.0.0 or ::, is asked on the loopback).
 */
const host = process.env.HOST || '127.0.0.1';
const loopback = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
const origin = `http://${loopback.includes(':') ? `[${loopback}]` : loopback}:${process.env.PORT || 3000}`;

const live = await fetch(`${origin}${PREFIX}/livez`, { signal: AbortSignal.timeout(2000) }).then(
  (response) => response.status === 200,
  () => false,
);
process.exit(live ? 0 : 1);
