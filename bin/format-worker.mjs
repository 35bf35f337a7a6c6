// A worker thread of restsmith's format step (src/pipeline/format-pool.ts): prettier on one file a message.
// Plain JavaScript so that it runs the same from dist/ and from the TypeScript sources under test.
import { parentPort } from 'node:worker_threads';
import * as oxc from '@prettier/plugin-oxc';
import prettier from 'prettier';

parentPort.on('message', async ({ index, content, parser, options }) => {
  try {
    parentPort.postMessage({ index, content: await prettier.format(content, { ...options, parser, plugins: [oxc] }) });
  } catch (error) {
    parentPort.postMessage({ index, error: error instanceof Error ? error.message : String(error) });
  }
});
