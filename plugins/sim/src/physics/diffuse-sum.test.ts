import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { BENCH_REVERBERATION_C2, benchScenario } from '../bench/sim-bench.js';
import type { ScenarioInput } from '../scenario/schema.js';
import { generatedModule } from '../../scripts/generate-diffuse-sum.mjs';

/** Every link's clean channel at a few instants, as bytes (a last-bit difference shows). */
async function cleanBytes(scenario: ScenarioInput, withoutSimd: boolean): Promise<{ simd: boolean; bytes: Buffer }> {
  vi.resetModules();
  if (withoutSimd) {
    vi.doMock('./diffuse-sum.js', async (importOriginal) => ({ ...(await importOriginal<typeof import('./diffuse-sum.js')>()), diffuseSumAvailable: () => false }));
  } else {
    vi.doUnmock('./diffuse-sum.js');
  }
  const { Simulator } = await import('../index.js');
  const { diffuseSumAvailable } = await import('./diffuse-sum.js');
  const sim = new Simulator(scenario);
  const parts: Buffer[] = [];
  for (let l = 0; l < sim.links.length; l++) {
    for (const t of [0.3, 1.7, 4.1]) {
      const h = sim.cleanChannel(l, t);
      parts.push(Buffer.from(h.re.buffer), Buffer.from(h.im.buffer));
    }
  }
  return { simd: diffuseSumAvailable(), bytes: Buffer.concat(parts) };
}

describe("the reverberant body's sum in WebAssembly SIMD", () => {
  it("gives the JS sweep's channel bit for bit (the bench's 3 × 3 at 30 subcarriers, an odd pair count, and 1 × 4 at 242, with C2)", async () => {
    const nexmon = benchScenario('nexmon80');
    const scenarios = [benchScenario('standard-c2'), { ...nexmon, propagation: { ...(nexmon.propagation ?? {}), reverberation: BENCH_REVERBERATION_C2 } }];
    for (const scenario of scenarios) {
      const simd = await cleanBytes(scenario, false);
      const js = await cleanBytes(scenario, true);
      expect(simd.simd).toBe(true);
      expect(js.simd).toBe(false);
      expect(simd.bytes.equals(js.bytes)).toBe(true);
    }
    vi.doUnmock('./diffuse-sum.js');
  });

  it('is the module its committed source assembles to (scripts/generate-diffuse-sum.mjs)', async () => {
    const committed = readFileSync(new URL('./diffuse-sum-wasm.ts', import.meta.url), 'utf8');
    expect(await generatedModule()).toBe(committed);
  });
});
