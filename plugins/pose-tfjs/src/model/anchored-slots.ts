import * as tf from '@tensorflow/tfjs';

/**
 * Floor positions as a convex mix of anchors the room geometry defines: the four corners, the
 * centre, and each link's transmitter and receiver (all as fractions of the room). A network
 * can then say "near the receiver of link 2" — which means the same thing in every room —
 * instead of learning absolute coordinates per room, and can never leave the room.
 * Inputs: slots `[B, P, 54]`, anchor logits `[B, P × A]`, geometry `[B, 3 + 6L]`; output: the
 * slots with channels 1–2 (x/W, y/D) replaced by the anchor mix.
 */
export class AnchoredSlots extends tf.layers.Layer {
  static readonly className = 'WiflowAnchoredSlots';
  readonly links: number;
  readonly maxPersons: number;

  constructor(config: { links: number; maxPersons: number; name?: string }) {
    super({ name: config.name });
    this.links = config.links;
    this.maxPersons = config.maxPersons;
  }

  /** Anchors per room: 4 corners, the centre, and tx and rx of every link. */
  static anchorCount(links: number): number {
    return 5 + 2 * links;
  }

  override computeOutputShape(inputShape: tf.Shape | tf.Shape[]): tf.Shape {
    return (inputShape as tf.Shape[])[0];
  }

  override call(inputs: tf.Tensor | tf.Tensor[]): tf.Tensor {
    return tf.tidy(() => {
      const [slots, logits, geometry] = inputs as tf.Tensor[];
      const batch = slots.shape[0]!;
      const A = AnchoredSlots.anchorCount(this.links);
      const W = geometry.slice([0, 0], [-1, 1]);
      const D = geometry.slice([0, 1], [-1, 1]);
      const fixed = tf.tensor2d([0, 0, 1, 0, 0, 1, 1, 1, 0.5, 0.5], [1, 10]).tile([batch, 1]);
      const parts: tf.Tensor[] = [fixed];
      for (let i = 0; i < this.links; i++) {
        for (const at of [3 + 6 * i, 6 + 6 * i]) {
          parts.push(geometry.slice([0, at], [-1, 1]).div(W));
          parts.push(geometry.slice([0, at + 1], [-1, 1]).div(D));
        }
      }
      const anchors = tf.concat(parts, 1).reshape([batch, 1, A, 2]);
      const weights = tf.softmax(logits.reshape([batch, this.maxPersons, A])).reshape([batch, this.maxPersons, A, 1]);
      const position = weights.mul(anchors).sum(2);
      const presence = slots.slice([0, 0, 0], [-1, -1, 1]);
      const rest = slots.slice([0, 0, 3], [-1, -1, -1]);
      return tf.concat([presence, position, rest], 2);
    });
  }

  override getConfig(): tf.serialization.ConfigDict {
    return { ...super.getConfig(), links: this.links, maxPersons: this.maxPersons };
  }
}

tf.serialization.registerClass(AnchoredSlots);
