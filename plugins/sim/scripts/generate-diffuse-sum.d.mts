/** The text of src/physics/diffuse-sum-wasm.ts for diffuse-sum.wat's current bytes (assembled by wabt). */
export function generatedModule(): Promise<string>;
