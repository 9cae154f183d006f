;; The reverberant body's sum (link-channel.ts, #addBodyDiffuse) in WebAssembly SIMD: per diffuse path, per
;; antenna pair, the value a·e^{−j2π f_k L/c} swept over the subcarriers by its step phasor and added to the
;; channel. Two antenna pairs share each f64x2 instruction (lane 0 and lane 1), and two paths are swept in one
;; loop (two independent multiply chains, one load and store of the channel for both). Every value is computed
;; with the same IEEE operations in the same order as the JS sweep (`#sumSeparable`), and each channel element
;; takes the paths in the same order: WebAssembly fuses no multiply-add, so the result is bit-identical. Assembled by scripts/generate-diffuse-sum.mjs into diffuse-sum-wasm.ts.
;;
;; Memory (byte offsets passed in, 16-aligned):
;;   amp  [path] {re, im}                      f64 ×2
;;   tx   [path][tx antenna] {c0, s0, cs, ss}  f64 ×4: the antenna's phasor at the first subcarrier and its step
;;   rx   [path][rx antenna] {c0, s0, cs, ss}  f64 ×4
;;   runs [run] {gap, length}                  i32 ×2: the grid's index steps in runs of equal gaps
;;   pow  [path of 2][gap] {re, im}            v128 ×2: scratch, the step phasors' powers (0 … maxGap)
;;   acc  [pair group][subcarrier] {re, im}    v128 ×2: the channel, lane l holding pair 2·group + l
;; An odd last group repeats the last pair in lane 1; the caller ignores that lane. The path count must be even.
(module
  (memory (export "memory") 1)

  ;; Path m's start value a = amp·t0·r0 for group g's two pairs (returned) and the powers of its step ts·rs into pow.
  (func $start
    (param $amp i32) (param $txm i32) (param $rxm i32) (param $g i32) (param $pairs i32) (param $nrx i32)
    (param $pow i32) (param $maxGap i32) (result v128 v128)
    (local $pa i32) (local $pb i32) (local $ia i32) (local $ib i32) (local $ta i32) (local $tb i32) (local $ra i32) (local $rb i32)
    (local $q i32) (local $s i32)
    (local $ampR v128) (local $ampI v128)
    (local $t0r v128) (local $t0i v128) (local $tsr v128) (local $tsi v128)
    (local $r0r v128) (local $r0i v128) (local $rsr v128) (local $rsi v128)
    (local $pr v128) (local $pi v128) (local $wr v128) (local $wi v128) (local $t v128)
    (local.set $ampR (f64x2.splat (f64.load (local.get $amp))))
    (local.set $ampI (f64x2.splat (f64.load offset=8 (local.get $amp))))
    ;; The group's two pairs (tx antenna i, rx antenna j), the second clamped to the last pair.
    (local.set $pa (i32.shl (local.get $g) (i32.const 1)))
    (local.set $pb (i32.add (local.get $pa) (i32.const 1)))
    (if (i32.ge_u (local.get $pb) (local.get $pairs)) (then (local.set $pb (local.get $pa))))
    (local.set $ia (i32.div_u (local.get $pa) (local.get $nrx)))
    (local.set $ib (i32.div_u (local.get $pb) (local.get $nrx)))
    (local.set $ta (i32.add (local.get $txm) (i32.shl (local.get $ia) (i32.const 5))))
    (local.set $tb (i32.add (local.get $txm) (i32.shl (local.get $ib) (i32.const 5))))
    (local.set $ra (i32.add (local.get $rxm) (i32.shl (i32.sub (local.get $pa) (i32.mul (local.get $ia) (local.get $nrx))) (i32.const 5))))
    (local.set $rb (i32.add (local.get $rxm) (i32.shl (i32.sub (local.get $pb) (i32.mul (local.get $ib) (local.get $nrx))) (i32.const 5))))
    (local.set $t0r (f64x2.replace_lane 1 (f64x2.splat (f64.load (local.get $ta))) (f64.load (local.get $tb))))
    (local.set $t0i (f64x2.replace_lane 1 (f64x2.splat (f64.load offset=8 (local.get $ta))) (f64.load offset=8 (local.get $tb))))
    (local.set $tsr (f64x2.replace_lane 1 (f64x2.splat (f64.load offset=16 (local.get $ta))) (f64.load offset=16 (local.get $tb))))
    (local.set $tsi (f64x2.replace_lane 1 (f64x2.splat (f64.load offset=24 (local.get $ta))) (f64.load offset=24 (local.get $tb))))
    (local.set $r0r (f64x2.replace_lane 1 (f64x2.splat (f64.load (local.get $ra))) (f64.load (local.get $rb))))
    (local.set $r0i (f64x2.replace_lane 1 (f64x2.splat (f64.load offset=8 (local.get $ra))) (f64.load offset=8 (local.get $rb))))
    (local.set $rsr (f64x2.replace_lane 1 (f64x2.splat (f64.load offset=16 (local.get $ra))) (f64.load offset=16 (local.get $rb))))
    (local.set $rsi (f64x2.replace_lane 1 (f64x2.splat (f64.load offset=24 (local.get $ra))) (f64.load offset=24 (local.get $rb))))
    ;; The step w = ts·rs and its powers: pow[1] = w, pow[q] = pow[q − 1]·w.
    (local.set $wr (f64x2.sub (f64x2.mul (local.get $tsr) (local.get $rsr)) (f64x2.mul (local.get $tsi) (local.get $rsi))))
    (local.set $wi (f64x2.add (f64x2.mul (local.get $tsr) (local.get $rsi)) (f64x2.mul (local.get $tsi) (local.get $rsr))))
    (v128.store offset=32 (local.get $pow) (local.get $wr))
    (v128.store offset=48 (local.get $pow) (local.get $wi))
    (local.set $pr (local.get $wr))
    (local.set $pi (local.get $wi))
    (local.set $q (i32.const 2))
    (block $powersDone
      (loop $power
        (br_if $powersDone (i32.gt_u (local.get $q) (local.get $maxGap)))
        (local.set $t (f64x2.sub (f64x2.mul (local.get $pr) (local.get $wr)) (f64x2.mul (local.get $pi) (local.get $wi))))
        (local.set $pi (f64x2.add (f64x2.mul (local.get $pr) (local.get $wi)) (f64x2.mul (local.get $pi) (local.get $wr))))
        (local.set $pr (local.get $t))
        (local.set $s (i32.add (local.get $pow) (i32.shl (local.get $q) (i32.const 5))))
        (v128.store (local.get $s) (local.get $pr))
        (v128.store offset=16 (local.get $s) (local.get $pi))
        (local.set $q (i32.add (local.get $q) (i32.const 1)))
        (br $power)))
    ;; The pair's phasor p = t0·r0 and the start value a = amp·p.
    (local.set $pr (f64x2.sub (f64x2.mul (local.get $t0r) (local.get $r0r)) (f64x2.mul (local.get $t0i) (local.get $r0i))))
    (local.set $pi (f64x2.add (f64x2.mul (local.get $t0r) (local.get $r0i)) (f64x2.mul (local.get $t0i) (local.get $r0r))))
    (f64x2.sub (f64x2.mul (local.get $ampR) (local.get $pr)) (f64x2.mul (local.get $ampI) (local.get $pi)))
    (f64x2.add (f64x2.mul (local.get $ampR) (local.get $pi)) (f64x2.mul (local.get $ampI) (local.get $pr))))

  (func (export "sumDiffuse")
    (param $paths i32) (param $ntx i32) (param $nrx i32) (param $nsc i32) (param $nruns i32) (param $maxGap i32)
    (param $amp i32) (param $tx i32) (param $rx i32) (param $runs i32) (param $pow i32) (param $acc i32)
    (local $m i32) (local $pairs i32) (local $groups i32) (local $g i32) (local $pow2 i32)
    (local $txStride i32) (local $rxStride i32) (local $txm i32) (local $rxm i32)
    (local $r i32) (local $n i32) (local $a i32) (local $s i32) (local $gap i32)
    (local $ar v128) (local $ai v128) (local $br v128) (local $bi v128)
    (local $sar v128) (local $sai v128) (local $sbr v128) (local $sbi v128) (local $t v128)
    (local.set $pairs (i32.mul (local.get $ntx) (local.get $nrx)))
    (local.set $groups (i32.shr_u (i32.add (local.get $pairs) (i32.const 1)) (i32.const 1)))
    (local.set $pow2 (i32.add (local.get $pow) (i32.shl (i32.add (local.get $maxGap) (i32.const 1)) (i32.const 5))))
    (local.set $txStride (i32.shl (local.get $ntx) (i32.const 5)))
    (local.set $rxStride (i32.shl (local.get $nrx) (i32.const 5)))
    (block $pathsDone
      (loop $path
        (br_if $pathsDone (i32.ge_u (local.get $m) (local.get $paths)))
        (local.set $txm (i32.add (local.get $tx) (i32.mul (local.get $m) (local.get $txStride))))
        (local.set $rxm (i32.add (local.get $rx) (i32.mul (local.get $m) (local.get $rxStride))))
        (local.set $g (i32.const 0))
        (block $groupsDone
          (loop $group
            (br_if $groupsDone (i32.ge_u (local.get $g) (local.get $groups)))
            ;; Paths m (a) and m + 1 (b) on the group's two pairs.
            (call $start (i32.add (local.get $amp) (i32.shl (local.get $m) (i32.const 4))) (local.get $txm) (local.get $rxm)
              (local.get $g) (local.get $pairs) (local.get $nrx) (local.get $pow) (local.get $maxGap))
            (local.set $ai)
            (local.set $ar)
            (call $start (i32.add (local.get $amp) (i32.add (i32.shl (local.get $m) (i32.const 4)) (i32.const 16)))
              (i32.add (local.get $txm) (local.get $txStride)) (i32.add (local.get $rxm) (local.get $rxStride))
              (local.get $g) (local.get $pairs) (local.get $nrx) (local.get $pow2) (local.get $maxGap))
            (local.set $bi)
            (local.set $br)
            ;; The sweep: out += a, then out += b, at the first subcarrier; then a ← a·pow_a[gap], b ← b·pow_b[gap]
            ;; and the same at each next one.
            (local.set $a (i32.add (local.get $acc) (i32.shl (i32.mul (local.get $g) (local.get $nsc)) (i32.const 5))))
            (v128.store (local.get $a) (f64x2.add (f64x2.add (v128.load (local.get $a)) (local.get $ar)) (local.get $br)))
            (v128.store offset=16 (local.get $a) (f64x2.add (f64x2.add (v128.load offset=16 (local.get $a)) (local.get $ai)) (local.get $bi)))
            (local.set $r (i32.const 0))
            (block $runsDone
              (loop $run
                (br_if $runsDone (i32.ge_u (local.get $r) (local.get $nruns)))
                (local.set $gap (i32.shl (i32.load (i32.add (local.get $runs) (i32.shl (local.get $r) (i32.const 3)))) (i32.const 5)))
                (local.set $s (i32.add (local.get $pow) (local.get $gap)))
                (local.set $sar (v128.load (local.get $s)))
                (local.set $sai (v128.load offset=16 (local.get $s)))
                (local.set $s (i32.add (local.get $pow2) (local.get $gap)))
                (local.set $sbr (v128.load (local.get $s)))
                (local.set $sbi (v128.load offset=16 (local.get $s)))
                (local.set $n (i32.load offset=4 (i32.add (local.get $runs) (i32.shl (local.get $r) (i32.const 3)))))
                (block $stepsDone
                  (loop $step
                    (br_if $stepsDone (i32.eqz (local.get $n)))
                    (local.set $t (f64x2.sub (f64x2.mul (local.get $ar) (local.get $sar)) (f64x2.mul (local.get $ai) (local.get $sai))))
                    (local.set $ai (f64x2.add (f64x2.mul (local.get $ar) (local.get $sai)) (f64x2.mul (local.get $ai) (local.get $sar))))
                    (local.set $ar (local.get $t))
                    (local.set $t (f64x2.sub (f64x2.mul (local.get $br) (local.get $sbr)) (f64x2.mul (local.get $bi) (local.get $sbi))))
                    (local.set $bi (f64x2.add (f64x2.mul (local.get $br) (local.get $sbi)) (f64x2.mul (local.get $bi) (local.get $sbr))))
                    (local.set $br (local.get $t))
                    (local.set $a (i32.add (local.get $a) (i32.const 32)))
                    (v128.store (local.get $a) (f64x2.add (f64x2.add (v128.load (local.get $a)) (local.get $ar)) (local.get $br)))
                    (v128.store offset=16 (local.get $a) (f64x2.add (f64x2.add (v128.load offset=16 (local.get $a)) (local.get $ai)) (local.get $bi)))
                    (local.set $n (i32.sub (local.get $n) (i32.const 1)))
                    (br $step)))
                (local.set $r (i32.add (local.get $r) (i32.const 1)))
                (br $run)))
            (local.set $g (i32.add (local.get $g) (i32.const 1)))
            (br $group)))
        (local.set $m (i32.add (local.get $m) (i32.const 2)))
        (br $path)))))
