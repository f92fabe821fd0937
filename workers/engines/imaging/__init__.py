"""Image building blocks the engines share: decoding, colour, masks, pose and cut-outs."""
