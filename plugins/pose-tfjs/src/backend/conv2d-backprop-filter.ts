import * as tf from '@tensorflow/tfjs';
import type { BackendWasm } from '@tensorflow/tfjs-backend-wasm';

/**
 * Conv2DBackpropFilter for the WASM backend, which ships without it (so conv layers
 * cannot train there). Gradient of the filter = im2col(x)ᵀ · dy: the patch matrix is
 * gathered in JS (a copy, cheap next to the product) and the product runs in the WASM
 * backend's own SIMD BatchMatMul kernel, called directly so nothing reaches the tape.
 * Supports NHWC (conv1d and conv2d layers in channels-last), any stride and padding.
 */
function conv2DBackpropFilterWasm(args: { inputs: tf.NamedTensorInfoMap; backend: tf.KernelBackend; attrs?: tf.NamedAttrMap }): tf.TensorInfo {
  const backend = args.backend as unknown as BackendWasm;
  const { x, dy } = args.inputs as { x: tf.TensorInfo; dy: tf.TensorInfo };
  const { strides, pad, dataFormat, dimRoundingMode, filterShape } = args.attrs as unknown as {
    strides: [number, number] | number;
    pad: 'valid' | 'same' | number | tf.backend_util.ExplicitPadding;
    dataFormat: 'NHWC' | 'NCHW';
    dimRoundingMode?: 'floor' | 'round' | 'ceil';
    filterShape: [number, number, number, number];
  };
  if (dataFormat !== 'NHWC') throw new Error(`Conv2DBackpropFilter (wasm, wiflow): only NHWC is supported, got ${dataFormat}`);
  const info = tf.backend_util.computeConv2DInfo(
    x.shape as [number, number, number, number], filterShape, strides, 1, pad as 'same', dimRoundingMode, false, 'channelsLast',
  );
  const { batchSize, inHeight, inWidth, inChannels, outHeight, outWidth, outChannels, filterHeight, filterWidth, strideHeight, strideWidth } = info;
  const top = info.padInfo.top;
  const left = info.padInfo.left;
  const rows = batchSize * outHeight * outWidth;
  const cols = filterHeight * filterWidth * inChannels;
  // Allocate first: an allocation may grow the WASM memory and detach earlier heap views.
  const patches = backend.makeOutput([1, rows, cols], 'float32');
  const xValues = backend.typedArrayFromHeap(x) as Float32Array;
  const patchValues = backend.typedArrayFromHeap(patches) as Float32Array;
  patchValues.fill(0);
  let row = 0;
  for (let b = 0; b < batchSize; b++) {
    for (let oh = 0; oh < outHeight; oh++) {
      for (let ow = 0; ow < outWidth; ow++, row++) {
        const rowBase = row * cols;
        for (let fh = 0; fh < filterHeight; fh++) {
          const ih = oh * strideHeight + fh - top;
          if (ih < 0 || ih >= inHeight) continue;
          for (let fw = 0; fw < filterWidth; fw++) {
            const iw = ow * strideWidth + fw - left;
            if (iw < 0 || iw >= inWidth) continue;
            const src = ((b * inHeight + ih) * inWidth + iw) * inChannels;
            const dst = rowBase + (fh * filterWidth + fw) * inChannels;
            patchValues.set(xValues.subarray(src, src + inChannels), dst);
          }
        }
      }
    }
  }
  const reshape = tf.getKernel('Reshape', 'wasm')!.kernelFunc;
  const matMul = tf.getKernel('BatchMatMul', 'wasm')!.kernelFunc;
  const dy3 = reshape({ inputs: { x: dy }, backend: args.backend, attrs: { shape: [1, rows, outChannels] } }) as tf.TensorInfo;
  const product = matMul({ inputs: { a: patches, b: dy3 }, backend: args.backend, attrs: { transposeA: true, transposeB: false } }) as tf.TensorInfo;
  const out = reshape({ inputs: { x: product }, backend: args.backend, attrs: { shape: filterShape } }) as tf.TensorInfo;
  backend.disposeData(patches.dataId);
  backend.disposeData(dy3.dataId);
  backend.disposeData(product.dataId);
  return out;
}

/** Register the kernel on the WASM backend once (a no-op when it is already there). */
export function registerWasmConv2DBackpropFilter(): void {
  if (tf.getKernel('Conv2DBackpropFilter', 'wasm')) return;
  tf.registerKernel({ kernelName: 'Conv2DBackpropFilter', backendName: 'wasm', kernelFunc: conv2DBackpropFilterWasm as unknown as tf.KernelFunc });
}
