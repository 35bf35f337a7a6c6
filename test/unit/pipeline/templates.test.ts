import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Handlebars from 'handlebars';
import { describe, expect, it } from 'vitest';
import prettier from 'prettier';
import { PRETTIER_OPTIONS } from '../../../src/generate/project-files.js';
import { formatAll } from '../../../src/pipeline/format.js';
import { plan } from '../../../src/pipeline/plan.js';
import { render } from '../../../src/pipeline/render.js';
import { readDefinition } from '../../../src/pipeline/read-definition.js';
import { OPTIONS, precompiledModule } from '../../../src/pipeline/templates.js';

const ROOT = join(import.meta.dirname, '../../..');
const TEMPLATES = join(ROOT, 'templates');

interface Precompiled {
  hash: string;
  spec: TemplateSpecification;
}

/** The module the build writes, imported as a run imports it. */
async function built(): Promise<Record<string, Precompiled>> {
  const file = join(mkdtempSync(join(tmpdir(), 'precompiled-')), 'precompiled-templates.js');
  writeFileSync(file, precompiledModule());
  return ((await import(pathToFileURL(file).href)) as { PRECOMPILED: Record<string, Precompiled> }).PRECOMPILED;
}

const templatesUnder = (folder: string): string[] =>
  readdirSync(join(TEMPLATES, folder)).map((file) => `${folder}/${file}`);

/** An instance with helpers of the same names as render.ts's (what they print does not matter here) and the partials. */
function instance(template: (h: typeof Handlebars, path: string) => HandlebarsTemplateDelegate): typeof Handlebars {
  const h = Handlebars.create();
  const text = (value: unknown): string => JSON.stringify(value) ?? '';
  h.registerHelper({
    js: text,
    tsConst: text,
    tsProperty: text,
    tsAssigned: text,
    signature: text,
    call: text,
    arrow: text,
    conditional: text,
    lastFunction: text,
    array: text,
    object: text,
    statement: text,
    sqlText: text,
    comment: text,
    md: text,
    capitalised: text,
  });
  for (const path of templatesUnder('partials')) h.registerPartial(path.slice(9, -4), template(h, path));
  return h;
}

describe('templates precompiled by the build', () => {
  it('are every template, each with the hash of its source', async () => {
    const precompiled = await built();
    const all = ['partials', 'project', 'resource'].flatMap((folder) =>
      readdirSync(join(TEMPLATES, folder), { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile() && entry.name.endsWith('.hbs'))
        .map((entry) => `${join(entry.parentPath, entry.name).slice(TEMPLATES.length + 1)}`),
    );
    expect(Object.keys(precompiled).sort()).toEqual(all.sort());
    for (const [path, { hash }] of Object.entries(precompiled)) {
      const source = readFileSync(join(TEMPLATES, path), 'utf8');
      expect(hash, path).toBe(createHash('sha256').update(source).digest('hex'));
    }
  });

  it('render what the same templates compiled from their source render, on two examples’ files', async () => {
    const precompiled = await built();
    const source = (path: string): string => readFileSync(join(TEMPLATES, path), 'utf8');
    const fromBuild = instance((h, path) => h.template(precompiled[path]?.spec ?? fail(path)));
    const fromSource = instance((h, path) => h.compile(source(path), OPTIONS));
    let rendered = 0;
    for (const example of ['library', 'clinic']) {
      const api = await readDefinition(join(ROOT, 'examples', `${example}.yaml`));
      const context = { source: `${example}.yaml`, migrations: [], orphanFiles: [], orphanHandlers: new Map() };
      for (const file of plan(api, context)) {
        if (!('template' in file)) continue;
        const spec = precompiled[file.template]?.spec ?? fail(file.template);
        const want = fromSource.compile(source(file.template), OPTIONS)(file.context);
        expect(fromBuild.template(spec)(file.context), file.path).toBe(want);
        rendered += 1;
      }
    }
    expect(rendered).toBeGreaterThan(30);
  });
});

describe('text from a definition in the README', () => {
  it('stays on its line, and opens no markup: a title with line breaks and $$', async () => {
    const text = await readmeOf(
      'name: hives\nversion: 1.0.0\ntitle: "Apiary\\n\\n$$\\nbees | *all* #1"\nresources:\n  hives:\n    fields: { name: string }\n',
    );
    expect(text).toContain('\n# Apiary \\$\\$ bees \\| \\*all\\* \\#1\n');
    const [formatted] = await formatAll([{ path: 'README.md', owner: 'generator', content: text }]);
    expect(formatted?.chunks?.length).toBeGreaterThan(1);
    expect(formatted?.content).toBe(await prettier.format(text, { ...PRETTIER_OPTIONS, parser: 'markdown' }));
  });
});

describe('a deprecated resource in the README', () => {
  it('says since when, until when and where to read, the link escaped and the words around it not', async () => {
    const text = await readmeOf(
      'name: hives\nversion: 1.0.0\nresources:\n  hives:\n    fields: { name: string }\n' +
        '    deprecated: { since: 2026-11-01, sunset: 2027-06-30, link: "https://example.com/going_away" }\n' +
        '  combs:\n    fields: { name: string }\n    deprecated: { since: 2026-11-02 }\n',
    );
    expect(text).toContain(
      '— **deprecated** since 2026-11-01, gone on 2027-06-30 (https://example.com/going\\_away): its responses carry',
    );
    expect(text).toContain('— **deprecated** since 2026-11-02: its responses carry');
  });
});

/** The README generated from the definition `yaml`, rendered (not formatted). */
async function readmeOf(yaml: string): Promise<string> {
  const file = join(mkdtempSync(join(tmpdir(), 'md-')), 'hives.yaml');
  writeFileSync(file, yaml);
  const api = await readDefinition(file);
  const context = { source: 'hives.yaml', migrations: [], orphanFiles: [], orphanHandlers: new Map() };
  const readme = plan(api, context).find((p) => p.path === 'README.md') ?? fail('README.md');
  return render(readme, 'hives.yaml').content;
}

function fail(path: string): never {
  throw new Error(`not precompiled: ${path}`);
}
