// A worker thread of restsmith's format step (src/pipeline/format.ts): prettier on a share of the files.
// Plain JavaScript so that it runs the same from dist/ and from the TypeScript sources under test.
import { parentPort } from 'node:worker_threads';
import * as oxc from '@prettier/plugin-oxc';
import prettier from 'prettier';

parentPort.on('message', async ({ jobs, options }) => {
  try {
    const contents = [];
    for (const job of jobs) contents.push(await prettier.format(job.content, { ...options, parser: job.parser, plugins: [oxc] }));
    parentPort.postMessage({ contents });
  } catch (error) {
    parentPort.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
});
