import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** wrk's Lua scripts: random ids, bodies and headers for each test, written once per run. */
export function writeScripts(
  dir: string,
  ids: { posts: string[]; articles: string[] },
  token: string,
): Record<string, string> {
  const list = (all: readonly string[]): string => {
    const sample = all.filter((_, i) => i % Math.max(1, Math.floor(all.length / 2000)) === 0);
    return `local ids = {${sample.map((id) => `"${id}"`).join(',')}}\n`;
  };
  const idList = list(ids.posts);
  const scripts: Record<string, string> = {
    getItem: `${idList}request = function() return wrk.format("GET", "/posts/" .. ids[math.random(#ids)]) end\n`,
    post:
      'local n = 0\nrequest = function()\n  n = n + 1\n' +
      '  return wrk.format("POST", "/posts", { ["content-type"] = "application/json" }, \'{"title":"bench \' .. n .. \'","body":"created by wrk","views":1}\')\nend\n',
    patch:
      `${idList}request = function()\n` +
      '  return wrk.format("PATCH", "/posts/" .. ids[math.random(#ids)], { ["content-type"] = "application/json" }, \'{"views":7}\')\nend\n',
    authItem:
      `${list(ids.articles)}local auth = "Bearer ${token}"\n` +
      'request = function() return wrk.format("GET", "/articles/" .. ids[math.random(#ids)], { ["authorization"] = auth }) end\n',
  };
  return Object.fromEntries(
    Object.entries(scripts).map(([name, text]) => {
      const path = join(dir, `${name}.lua`);
      writeFileSync(path, text);
      return [name, path];
    }),
  );
}
