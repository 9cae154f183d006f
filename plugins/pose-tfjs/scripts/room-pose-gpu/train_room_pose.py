"""GPU path for wiflow-room-pose-v1 (UNVERIFIED: no GPU machine was available when it was written).

Trains the same network as `fitRoomPose` (src/room-pose/room-pose-model.ts) in PyTorch and writes
a model directory with the same contract: `room-pose.json` (spec) and `weights.bin` (float32
little-endian; per layer the matrix [in][out] row-major, then the bias [out]), which
`loadRoomPoseModel` reads and hashes. The modelHash is computed by wiflow when it loads the
directory (sha256 of weights.bin then room-pose.json).

Rows come from `wiflow calibrate --recording <dir> --export-rows <rows>` (twin/ and labelled/,
each features.bin, targets.bin, rows.json; spec-base.json).

    python train_room_pose.py --rows <rows> --out <models>/<environment id>

Needs: python 3.10+, torch, numpy.
"""
import argparse
import json
import os

import numpy as np
import torch


def load_rows(directory):
    meta = json.load(open(os.path.join(directory, "rows.json")))
    x = np.fromfile(os.path.join(directory, "features.bin"), dtype="<f4").reshape(meta["count"], meta["width"])
    y = np.fromfile(os.path.join(directory, "targets.bin"), dtype="<f4").reshape(meta["count"], 51)
    return x, y


def fit(net, x, y, epochs, lr, batch, device, seed):
    # Same loss as fitRoomPose: L1 on the residual against the mean pose, Adam, shuffled batches.
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    xt, yt = torch.tensor(x, device=device), torch.tensor(y, device=device)
    for _ in range(epochs):
        order = torch.randperm(len(xt), generator=gen).to(device)
        for start in range(0, len(xt), batch):
            idx = order[start:start + batch]
            opt.zero_grad()
            loss = (net(xt[idx]) - yt[idx]).abs().mean()
            loss.backward()
            opt.step()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    base = json.load(open(os.path.join(args.rows, "spec-base.json")))
    training = base.pop("training")
    device = "cuda" if torch.cuda.is_available() else "cpu"
    tx, ty = load_rows(os.path.join(args.rows, "twin"))
    lx, ly = load_rows(os.path.join(args.rows, "labelled"))
    mean, std = tx.mean(0), tx.std(0)
    std[std == 0] = 1
    mean_pose = ty.mean(0)
    norm = lambda x: ((x - mean) / std).astype(np.float32)
    resid = lambda y: (y - mean_pose).astype(np.float32)
    widths = [tx.shape[1], *training["twin"]["hidden"], 51]
    layers = []
    for i in range(len(widths) - 1):
        layers.append(torch.nn.Linear(widths[i], widths[i + 1]))
        if i < len(widths) - 2:
            layers.append(torch.nn.ReLU())
    net = torch.nn.Sequential(*layers).to(device)
    t, f = training["twin"], training["fineTune"]
    fit(net, norm(tx), resid(ty), t["epochs"], t["learningRate"], 64, device, training["seed"])
    fit(net, norm(lx), resid(ly), f["epochs"], f["learningRate"], 64, device, training["seed"])
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "weights.bin"), "wb") as out:
        for layer in net:
            if isinstance(layer, torch.nn.Linear):
                # PyTorch keeps [out][in]; the contract is [in][out].
                out.write(layer.weight.detach().cpu().numpy().T.astype("<f4").tobytes())
                out.write(layer.bias.detach().cpu().numpy().astype("<f4").tobytes())
    spec = {
        **base,
        "layers": widths,
        "featureMean": mean.tolist(),
        "featureStd": std.tolist(),
        "meanPose": mean_pose.reshape(17, 3).tolist(),
        "training": {"trainer": "pytorch (scripts/room-pose-gpu/train_room_pose.py)", "device": device, **training},
    }
    with open(os.path.join(args.out, "room-pose.json"), "w") as out:
        json.dump(spec, out, indent=2)


if __name__ == "__main__":
    main()
