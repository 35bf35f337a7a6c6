// The limit: a raw node:http server that answers a constant JSON body.
import { createServer } from 'node:http';

const body = JSON.stringify({ id: '0', title: 'hello' });
createServer((request, response) => {
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}).listen(Number(process.env.PORT), '127.0.0.1');
