"""The augmentation of both networks' training inputs: light, colour, blur and noise for every
batch, stroke weight, and the drawn looks (a nib's strokes, bent shapes, a pen held one way)
that fonts lack and real decks have; and the plain normalisation validation and mining see.
Kept apart from the training loops so that ``zipai bench train-step`` and the tests time and
check exactly what training draws."""

from __future__ import annotations

import math
from typing import Any

from zipai.vision.preprocess import MEAN, STD

ZOOM = (0.6, 1.7)  # finder window rescaling range
NIB = (0.3, 2.5)  # reader crops drawn as with a nib: share, reach in pixels
WARP = (0.5, 0.08)  # reader crops bent: share, most displacement in half-widths
PEN = (0.3, 2.0)  # finder windows drawn with a pen of one direction: share, reach in pixels


def stroke_weight(torch: Any, x: Any, thick: float = 0.25, thin: float = 0.15, thin_max: float = 1.0) -> Any:
    """Float [B, 3, H, W] in 0..1: dark ink grows under a 3x3 min filter (a share ``thick`` of
    the batch) or thins under a max filter (a share ``thin``), blended in by 0.3 to 1 (to
    ``thin_max`` when thinning: at the finder's scale a full max filter erases a glyph). Printed
    decks ink heavier than fonts, and a Ming face's 一 is a hairline. Only the chosen images are
    filtered: on the finder's 256-px crops, filtering all of them cost a third of a step."""
    F = torch.nn.functional
    b = x.shape[0]
    r = torch.rand(b, 1, 1, 1, device=x.device).flatten()
    a = (torch.rand(b, 1, 1, 1, device=x.device) * 0.7 + 0.3).flatten()
    grow, shrink = (r < thick).nonzero().flatten(), (r > 1 - thin).nonzero().flatten()
    if len(grow) + len(shrink) == 0:
        return x
    x = x.contiguous()
    if len(grow):
        xs, w = x[grow], a[grow].view(-1, 1, 1, 1)
        x[grow] = xs * (1 - w) - F.max_pool2d(-xs, 3, 1, 1) * w
    if len(shrink):
        xs, w = x[shrink], a[shrink].clamp(max=thin_max).view(-1, 1, 1, 1)
        x[shrink] = xs * (1 - w) + F.max_pool2d(xs, 3, 1, 1) * w
    return x


def binomial_blur(F: Any, x: Any) -> Any:
    """Float [B, C, H, W] blurred by the 3x3 binomial kernel (1 2 1 by 1 2 1, over 16), edges
    replicated: as two passes of shifted sums, which on two cores took a third of the time of
    a grouped convolution on the reader's crops."""
    p = F.pad(x, (1, 1, 1, 1), mode="replicate")
    rows = p[:, :, :-2] + 2 * p[:, :, 1:-1] + p[:, :, 2:]
    return (rows[..., :-2] + 2 * rows[..., 1:-1] + rows[..., 2:]) / 16


def photometric(torch: Any, x: Any, strong: bool = False) -> Any:
    """uint8 [B, H, W, 3] -> normalised float [B, 3, H, W] with light, colour, blur and noise.

    Gain, brightness and contrast about the image's mean are one scale and offset a channel,
    applied in one pass, and grey only touches the images drawn grey: on two cores the plain
    formulas, a pass over the batch each, took about a quarter of a finder step. The random
    draws are the same, in the same order, as the formulas' (see the tests)."""
    F = torch.nn.functional
    b = x.shape[0]
    x = x.permute(0, 3, 1, 2).float().div_(255.0)
    dev = x.device
    gain = 1 + (torch.rand(b, 3, 1, 1, device=dev) - 0.5) * (0.4 if strong else 0.3)
    bright = 0.55 + torch.rand(b, 1, 1, 1, device=dev) * 0.8
    scale = gain * bright
    # the mean of the scaled image, from the mean of each channel (equal pixel counts)
    mean = (x.mean(dim=(2, 3), keepdim=True) * scale).mean(dim=1, keepdim=True)
    contrast = 0.6 + torch.rand(b, 1, 1, 1, device=dev) * 0.7
    x = x.mul(scale * contrast).add_(mean * (1 - contrast))  # keeps x's layout (channels last)
    gray = (torch.rand(b, 1, 1, 1, device=dev) < (0.15 if strong else 0.08)).flatten().nonzero().flatten()
    if len(gray):
        x[gray] = x[gray].mean(dim=1, keepdim=True).expand(-1, 3, -1, -1)
    blur = torch.rand(b, device=dev) < (0.4 if strong else 0.25)
    if blur.any():
        xb = binomial_blur(F, x[blur])
        if strong:
            twice = torch.rand(xb.shape[0], 1, 1, 1, device=dev) < 0.4
            xb = torch.where(twice, binomial_blur(F, xb), xb)
        x[blur] = xb
    sigma = torch.rand(b, 1, 1, 1, device=dev) * (0.06 if strong else 0.04)
    # drawn in (B, 3, H, W) order whatever x's layout, as the formulas drew it
    x.addcmul_(torch.randn(x.shape, device=dev), sigma).clamp_(0, 1)
    m = torch.tensor(MEAN, device=dev).view(1, 3, 1, 1)
    s = torch.tensor(STD, device=dev).view(1, 3, 1, 1)
    return x.sub_(m).div_(s)


def nib(torch: Any, x: Any, share: float = NIB[0], reach: float = NIB[1]) -> Any:
    """Float [B, 3, S, S] in 0..1: on a share of the crops, ink grows along one direction, as
    a flat brush or nib draws it: a stroke across the nib comes out broad and one along it
    thin, the look of brush-written decks that even and round font strokes lack. The darkest
    of the crop and two copies moved up to ``reach`` pixels that way (bilinear, any angle)."""
    F = torch.nn.functional
    b, w = x.shape[0], x.shape[3]
    pick = (torch.rand(b) < share).nonzero().flatten()
    if len(pick) == 0:
        return x
    ang = torch.rand(len(pick)) * math.pi
    dist = (0.5 + torch.rand(len(pick)) * (reach - 0.5)) * 2 / w  # pixels -> grid units
    xs = x[pick]
    out = xs
    for part in (0.5, 1.0):
        tx, ty = torch.cos(ang) * dist * part, torch.sin(ang) * dist * part
        one, zero = torch.ones_like(tx), torch.zeros_like(tx)
        theta = torch.stack([torch.stack([one, zero, tx], 1), torch.stack([zero, one, ty], 1)], 1)
        grid = F.affine_grid(theta, list(xs.shape), align_corners=False)
        out = torch.minimum(out, F.grid_sample(xs, grid, mode="bilinear", padding_mode="border",
                                               align_corners=False))
    x = x.clone()
    x[pick] = out
    return x


def warp(torch: Any, grid: Any, share: float = WARP[0], amount: float = WARP[1]) -> Any:
    """A sampling grid [B, S, S, 2] bent smoothly on a share of the crops, by at most
    ``amount`` of the crop's half-width: a hand-written face bends and tilts strokes that a
    font draws straight, and a reader that learnt fonts alone reads their exact shapes."""
    F = torch.nn.functional
    b, h, w, _ = grid.shape
    coarse = (torch.rand(b, 2, 5, 5) - 0.5) * 2
    amp = torch.rand(b, 1, 1, 1) * amount * (torch.rand(b, 1, 1, 1) < share).float()
    disp = F.interpolate(coarse, size=(h, w), mode="bicubic", align_corners=False) * amp
    return grid + disp.permute(0, 2, 3, 1)


def pen(torch: Any, x: Any, share: float = PEN[0], reach: float = PEN[1]) -> Any:
    """Float [B, 3, H, W] in 0..1, the finder's windows: on a share of them, strokes drawn as
    with a pen held one way (across, down or either diagonal), half grown along it (the
    darkest of the window and copies moved up to ``reach`` pixels: a brush's broad strokes)
    and half worn away across it (the lightest: a Ming face's hairline 一), blended in by 0.3
    to 1 (worn, to 0.7, so that a worn stroke keeps 0.3 of its ink: faint, not gone). Round,
    even font strokes are what the finder learnt; the decks it misses draw neither. Whole-pixel
    moves: at the finder's scale a stroke is a pixel or two wide, and sampling at any angle
    (``nib``) took longer on two cores than the light and colour of the whole batch."""
    F = torch.nn.functional
    b, _, h, w = x.shape
    pick = (torch.rand(b) < share).nonzero().flatten().tolist()
    if not pick:
        return x
    x = x.clone()
    r = max(1, int(reach))
    for i in pick:
        dx, dy = ((1, 0), (0, 1), (1, 1), (1, -1))[int(torch.randint(4, (1,)))]
        k = 1 + int(torch.rand(1) * reach) if reach > 1 else 1
        thin = bool(torch.rand(1) < 0.5)
        a = float(torch.rand(1)) * 0.7 + 0.3
        a = min(a, 0.7) if thin else a
        xi = x[i:i + 1]
        p = F.pad(xi, (r, r, r, r), mode="replicate")
        out = xi
        for step in range(1, min(k, r) + 1):
            ox, oy = dx * step, dy * step
            moved = p[..., r + oy:r + oy + h, r + ox:r + ox + w]
            out = torch.maximum(out, moved) if thin else torch.minimum(out, moved)
        x[i:i + 1] = xi * (1 - a) + out * a
    return x


def reader_augment(torch: Any, x: Any, brush: bool = False) -> Any:
    """Crops uint8 [B, S, S, 3] -> augmented normalised [B, 3, S, S]: stroke weight (and, with
    ``brush``, a nib's strokes and bent shapes), small rotation/scale/shift, then light,
    colour, blur and noise (heavier decks and phone photos)."""
    F = torch.nn.functional
    b = x.shape[0]
    xf = stroke_weight(torch, x.permute(0, 3, 1, 2).float() / 255.0)
    if brush:
        xf = nib(torch, xf)
    # geometry
    ang = (torch.rand(b) - 0.5) * math.radians(20)
    sc = 1 + (torch.rand(b) - 0.5) * 0.2
    tx, ty = (torch.rand(b) - 0.5) * 0.1, (torch.rand(b) - 0.5) * 0.1
    cos, sin = torch.cos(ang) * sc, torch.sin(ang) * sc
    theta = torch.stack([torch.stack([cos, -sin, tx], 1), torch.stack([sin, cos, ty], 1)], 1)
    grid = F.affine_grid(theta, list(xf.shape), align_corners=False)
    if brush:
        grid = warp(torch, grid)
    xf = F.grid_sample(xf, grid, mode="bilinear", padding_mode="border", align_corners=False)
    return photometric(torch, (xf.permute(0, 2, 3, 1) * 255).clamp(0, 255), strong=True)


def _norm(torch: Any, imgs: Any) -> Any:
    x = imgs.permute(0, 3, 1, 2).float() / 255.0
    m = torch.tensor(MEAN).view(1, 3, 1, 1)
    s = torch.tensor(STD).view(1, 3, 1, 1)
    return (x - m) / s
