#!/usr/bin/env python3
"""Adversarial MXDOTP stimulus (softmx examples/mxdotp): an inputs-only softmx dot file, one
instruction per line (blocks = 1, block = the unit's width, addend = yes), aimed at the unit's
edges: its accumulator bypass on both sides of each threshold, signed zeros, exact
cancellation, ties, the subnormal and underflow window, overflow, specials, extreme scales,
and random blocks with C placed around the thresholds.

  adversarial.py --elem e4m3 --to f32 --round rne [--seed 1] [--random 200] > FILE.in

The same arguments give the same bytes. Every C is a code of --to (f32 or bf16).
"""
import argparse
import random
import sys
from fractions import Fraction

# name: (exp bits, man bits, kind, width in bits, elements per instruction)
ELEMS = {
    'e4m3': (4, 3, 'fn', 8, 8), 'e5m2': (5, 2, 'ieee', 8, 8), 'e3m2': (3, 2, 'none', 6, 11),
    'e2m3': (2, 3, 'none', 6, 11), 'e2m1': (2, 1, 'none', 4, 16), 'int8:bias=-5': (0, 0, 'int', 8, 8),
}
DST = {'f32': (8, 23), 'bf16': (8, 7)}


def elem_value(name, code):
    e, m, kind, w, _ = ELEMS[name]
    if kind == 'int':
        return Fraction(code - 256 if code >= 128 else code)
    s = (code >> (w - 1)) & 1
    ef, mf = (code >> m) & ((1 << e) - 1), code & ((1 << m) - 1)
    bias = (1 << (e - 1)) - 1
    if kind == 'ieee' and ef == (1 << e) - 1:
        return None
    if kind == 'fn' and ef == (1 << e) - 1 and mf == (1 << m) - 1:
        return None
    v = Fraction(mf, 1 << m) * Fraction(2) ** (1 - bias) if ef == 0 else \
        Fraction((1 << m) + mf, 1 << m) * Fraction(2) ** (ef - bias)
    return -v if s else v


class Elem:
    def __init__(self, name):
        self.name = name
        self.e, self.m, self.kind, self.w, self.k = ELEMS[name]
        self.codes = {}
        for c in range(1 << self.w):
            v = elem_value(name, c)
            if v is not None and v not in self.codes:
                self.codes[v] = c
        pos = sorted(v for v in self.codes if v > 0)
        self.one = self.codes[Fraction(1)]
        self.max = self.codes[pos[-1]]
        self.min = self.codes[pos[0]]
        self.pzero = 0
        self.nzero = 0 if self.kind == 'int' else 1 << (self.w - 1)
        self.finite = [c for c in range(1 << self.w) if elem_value(name, c) is not None]
        if self.kind == 'fn':
            self.nan, self.snan, self.inf = 0x7F, None, None
        elif self.kind == 'ieee':
            self.nan, self.snan, self.inf = 0x7E, 0x7D, 0x7C
        else:
            self.nan = self.snan = self.inf = None

    def neg(self, c):
        if self.kind == 'int':
            return (-c) & 0xFF
        return c ^ (1 << (self.w - 1))

    def val(self, c):
        return elem_value(self.name, c)

    def pow2(self, x):
        """the code of 2^x, or None"""
        return self.codes.get(Fraction(2) ** x)


class Dst:
    def __init__(self, name):
        self.name = name
        self.e, self.m = DST[name]
        self.w = 1 + self.e + self.m
        self.bias = (1 << (self.e - 1)) - 1
        self.inf = ((1 << self.e) - 1) << self.m
        self.max = self.inf - 1
        self.sign = 1 << (self.w - 1)
        self.qnan = self.inf | (1 << (self.m - 1))
        self.snan = self.inf | 1
        self.nanall = self.inf | ((1 << self.m) - 1)

    def code(self, field, frac, sign=0):
        return (sign << (self.w - 1)) | (field << self.m) | frac

    def value(self, c):
        s = c >> (self.w - 1)
        f, t = (c >> self.m) & ((1 << self.e) - 1), c & ((1 << self.m) - 1)
        v = Fraction(t) * Fraction(2) ** (1 - self.bias - self.m) if f == 0 else \
            Fraction((1 << self.m) + t) * Fraction(2) ** (f - self.bias - self.m)
        return -v if s else v

    def nearest(self, v):
        """the code nearest to v (rne), saturating to max; 0 for 0"""
        if v == 0:
            return 0
        s = 1 if v < 0 else 0
        a = -v if s else v
        lo, hi = 0, self.max
        while lo < hi:  # largest code with value <= a
            mid = (lo + hi + 1) // 2
            if self.value(mid) <= a:
                lo = mid
            else:
                hi = mid - 1
        c = lo
        if c < self.max:
            d0, d1 = a - self.value(c), self.value(c + 1) - a
            if d1 < d0 or (d1 == d0 and c & 1):
                c += 1
        return (s << (self.w - 1)) | c


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--elem', required=True, choices=sorted(ELEMS))
    ap.add_argument('--to', required=True, choices=sorted(DST))
    ap.add_argument('--round', required=True, choices=['rne', 'rz', 'rd', 'ru', 'rna', 'ro'])
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--random', type=int, default=100)
    ap.add_argument('--full', action='store_true', help='every scale, shape, shift and mantissa of items 1-2 '
                    '(about 10,000 cases; the default keeps about a tenth of item 1)')
    o = ap.parse_args()
    E, D = Elem(o.elem), Dst(o.to)
    k = E.k
    rng = random.Random(o.seed)
    cases = []
    seen = set()

    def add(sa, A, sb, B, c):
        A = list(A) + [E.pzero] * (k - len(A))
        B = list(B) + [E.pzero] * (k - len(B))
        key = (sa, tuple(A), sb, tuple(B), c)
        if key not in seen:
            seen.add(key)
            cases.append(key)

    def scales_for(scale):
        """(sa, sb) with sa + sb - 254 = scale, both in 0..254"""
        t = scale + 254
        sa = min(254, max(0, t // 2))
        return sa, t - sa

    def add_one_product(target, ssign, c):
        """A_1 * B_1 = +-target (- when ssign), B_1 = 1 and C = c: A_1 is the first positive finite
        element whose target / A_1 is 2^scale exactly with |scale| <= 254, the scale split by
        scales_for; nothing when no element fits"""
        for a in E.finite:
            va = E.val(a)
            if va <= 0:
                continue
            ratio = target / va  # 2^scale exactly: va must be target * 2^-scale
            n, d = ratio.numerator, ratio.denominator
            if n & (n - 1) == 0 and d & (d - 1) == 0:
                scale = (n.bit_length() - 1) - (d.bit_length() - 1)
                if -254 <= scale <= 254:
                    sa, sb = scales_for(scale)
                    add(sa, [E.neg(a) if ssign else a], sb, [E.one], c)
                    return

    def sop(A, B):
        return sum(E.val(a) * E.val(b) for a, b in zip(A, B))

    def c_at_shift(shift, scale, frac, sign):
        """a C whose accumulator shift is `shift` (field = shift + scale + 116), or None"""
        field = shift + scale + 116
        if field < 1 or field > (1 << D.e) - 2:
            return None
        return D.code(field, frac, sign)

    ones = [E.one] * k
    maxes = [E.max] * k
    mins = [E.min] * k
    fracs = [0, 1 << (D.m - 1), (1 << D.m) - 1, 1]
    # product shapes
    shapes = [
        ([E.one], [E.one]),                              # S = 1
        ([E.neg(E.one)], [E.one]),                       # S = -1
        (maxes, maxes),                                  # the largest S
        (mins, mins),                                    # the smallest non-zero products
        ([E.max, E.neg(E.max)], [E.max, E.max]),         # S = 0 from cancellation
        ([], []),                                        # all +0
        ([E.nzero] * k, [E.one] * k),                    # all -0 products
        ([E.max, E.min, E.neg(E.max)], [E.max, E.min, E.max]),  # x + tiny - x
    ]
    # 1. the bypass thresholds: C's shift 68..72 and -22..-27, over scales, shapes, mantissas, signs
    scales1 = (-254, -200, -187, -186, -150, -120, -92, -91, -60, -24, 0, 30, 60, 100, 127, 200, 254)
    shifts1 = (68, 69, 70, 71, 72, -22, -23, -24, -25, -26, -27, 0, 40)
    if not o.full:
        scales1 = (-254, -187, -186, -92, -91, 0, 254)
        shifts1 = (70, 71, -24, -25)
        fracs = [(1 << D.m) - 1]
    for scale in scales1:
        sa, sb = scales_for(scale)
        for A, B in (shapes if o.full else shapes[:6]):
            for shift in shifts1:
                for frac in fracs:
                    for sign in (0, 1):
                        c = c_at_shift(shift, scale, frac, sign)
                        if c is not None:
                            add(sa, A, sb, B, c)
            # C = ±0 and the smallest subnormals with every shape
            for c in ((0, D.sign, 1, D.sign | 1, (1 << D.m) - 1) if o.full else (0, D.sign)):
                add(sa, A, sb, B, c)
    # 2. signed zeros: every zero pattern with C = ±0 at every scale branch of a zero C
    for scale in (-254, -187, -186, -185, -150, -116, -93, -92, -91, -90, 0, 100, 254):
        sa, sb = scales_for(scale)
        for A, B in ([], []), ([E.nzero] * k, [E.one] * k), ([E.nzero] * k, [E.nzero] * k), \
                ([E.pzero, E.nzero] * k, [E.one] * k), ([E.one, E.neg(E.one)], [E.one, E.one]):
            for c in (0, D.sign):
                add(sa, A[:k], sb, B[:k], c)
    # 3. exact cancellation S + C = 0 (C = -S when S is a code of D)
    for scale in range(-160, 130, 7 if o.full else 23):
        sa, sb = scales_for(scale)
        for A, B in ([E.one], [E.one]), ([E.max], [E.max]), ([E.one, E.one, E.one], [E.one, E.one, E.one]), \
                (ones, ones), (maxes, maxes), ([E.min], [E.min]):
            s = sop(A, B) * Fraction(2) ** scale
            c = D.nearest(-s)
            if D.value(c) == -s:
                add(sa, A, sb, B, c)
                add(sa, A, sb, B, c ^ 1 if c & ((1 << D.m) - 1) else c + 1)  # a near miss
    # 4. ties and near-ties at C's precision: C = 2^t (and odd mantissas), S = half an ulp, 1.5 ulps, ...
    for t in ((-100, -20, 0, 1, 20, 100) if o.full else (-100, 0, 100)):
        for cfrac in ((0, 1, (1 << D.m) - 1) if o.full else (0, 1)):
            for csign in (0, 1):
                c = D.code(t + D.bias, cfrac, csign)
                ulp = t - D.m  # exponent of C's ulp
                for num, den_exp in (((1, 1), (3, 1), (1, 2), (3, 2), (5, 3), (1, 0)) if o.full else
                                     ((1, 1), (3, 1), (1, 2), (1, 0))):
                    # S = num * 2^(ulp - den_exp) = one product (num * 2^-x) times a scale
                    target = Fraction(num) * Fraction(2) ** (ulp - den_exp)
                    for ssign in (0, 1):
                        add_one_product(target, ssign, c)
    # 5. the subnormal and underflow window: C near D's smallest normal, products of a few ulps
    smallest_normal = D.code(1, 0)
    for c in (smallest_normal, smallest_normal - 1, smallest_normal + 1, smallest_normal | D.sign,
              (smallest_normal - 1) | D.sign, 1, 2, 3, 0, D.sign):
        for x in (range(-3, 4) if o.full else (-2, -1, 0, 1)):  # products of 2^(emin - m + x), 3 * that
            for num in (1, 3):
                for ssign in (0, 1):
                    target = Fraction(num) * Fraction(2) ** (1 - D.bias - D.m + x - 1)
                    add_one_product(target, ssign, c)
    # 6. overflow: C = ±max with S around half its ulp; S alone beyond max
    maxulp = (1 << D.e) - 2 - D.bias - D.m
    for c in (D.max, D.max | D.sign, D.max - 1, 0):
        for de in (-2, -1, 0, 1, 2):
            for ssign in (0, 1):
                target = Fraction(2) ** (maxulp - 1 + de)
                add_one_product(target, ssign, c)
    for sa, sb in ((254, 254), (254, 200), (200, 200), (254, 127)):
        for c in (0, D.max, D.max | D.sign, D.inf, D.inf | D.sign):
            add(sa, maxes, sb, maxes, c)
            add(sa, [E.neg(x) for x in maxes], sb, maxes, c)
    # 7. specials: NaN and Inf elements, NaN scales, C NaN and Inf
    specials_c = (0, D.code(D.bias, 0), D.inf, D.inf | D.sign, D.qnan, D.nanall, D.snan, D.qnan | D.sign)
    for c in specials_c:
        add(127, ones, 127, ones, c)
        add(0xFF, ones, 127, ones, c)
        add(127, ones, 0xFF, ones, c)
        add(0xFF, [], 0xFF, [], c)
        add(0xFF, maxes, 0, mins, c)
        if E.nan is not None:
            for i in (0, k - 1):
                A = list(ones)
                A[i] = E.nan
                add(127, A, 127, ones, c)
                add(127, ones, 127, A, c)
                add(0xFF, A, 127, ones, c)
        if E.snan is not None:
            A = list(ones)
            A[1] = E.snan
            add(127, A, 127, ones, c)
        if E.inf is not None:
            for A, B in (([E.inf], [E.one]), ([E.inf], [E.pzero]), ([E.pzero], [E.inf]),
                         ([E.inf, E.neg(E.inf)], [E.one, E.one]), ([E.inf], [E.neg(E.one)]),
                         ([E.inf, E.nan], [E.pzero, E.one]), ([E.inf, E.snan], [E.one, E.one]),
                         ([E.inf, E.inf], [E.one, E.nzero])):
                add(127, A, 127, B, c)
                add(0, A, 0, B, c)
                add(0xFF, A, 127, B, c)
    # 8. extreme scales with max, min and mixed blocks
    for sa, sb in ((0, 0), (0, 254), (254, 0), (254, 254), (1, 1), (127, 127), (0, 1), (253, 254), (0, 127)):
        for A, B in (maxes, maxes), (mins, mins), (maxes, mins), (ones, [E.neg(x) for x in ones]):
            for c in ((0, D.sign, D.code(D.bias, 0), 1, D.max, D.code(1, 0)) if o.full else (0, D.code(D.bias, 0))):
                add(sa, A, sb, B, c)
    # 9. random blocks, C placed at the bypass thresholds and around S
    fin = [c for c in E.finite]
    for _ in range(o.random):
        A = [rng.choice(fin) for _ in range(k)]
        B = [rng.choice(fin) for _ in range(k)]
        if rng.random() < 0.25:  # a block that cancels
            h = k // 2
            A[h:2 * h] = [E.neg(x) for x in A[:h]]
            B[h:2 * h] = B[:h]
        scale = rng.randrange(-254, 255)
        sa, sb = scales_for(scale)
        s = sop(A, B) * Fraction(2) ** scale
        choice = rng.randrange(4)
        if choice == 0:
            shift = rng.choice((69, 70, 71, 72, -23, -24, -25, -26))
            c = c_at_shift(shift, scale, rng.randrange(1 << D.m), rng.randrange(2))
            if c is None:
                c = rng.randrange(1 << D.w)
        elif choice == 1 and s != 0:
            c = D.nearest(-s)
            c = (c + rng.randrange(-2, 3)) & ((1 << D.w) - 1)
        elif choice == 2 and s != 0:
            x = abs(s).numerator.bit_length() - abs(s).denominator.bit_length()
            v = Fraction(rng.randrange(1 << 20, 1 << 21), 1 << 20) * Fraction(2) ** (x + rng.randrange(-40, 41))
            c = D.nearest(v if rng.randrange(2) else -v)
        else:
            c = rng.randrange(1 << D.w)
            if (c >> D.m) & ((1 << D.e) - 1) == (1 << D.e) - 1:
                c &= ~(1 << D.m)  # mostly finite
        add(sa, A, sb, B, c)

    hexw = (E.w + 3) // 4
    cw = (D.w + 3) // 4
    out = sys.stdout
    out.write("softmx-vectors = 1\noperation = dot\n")
    out.write(f"a = {o.elem}\nb = {o.elem}\nrounding = {o.round}\nsaturation = none\n")
    out.write(f"tininess = after-bounded\nblock = {k}\nblocks = 1\naccumulation = mxdotp\n")
    out.write(f"to = {o.to}\naddend = yes\n")
    out.write(f"generator = examples/mxdotp/adversarial.py --elem {o.elem} --to {o.to} "
              f"--round {o.round} --seed {o.seed} --random {o.random}{' --full' if o.full else ''}\n")
    cols = ["SA"] + [f"A.{i + 1}" for i in range(k)] + ["SB"] + [f"B.{i + 1}" for i in range(k)] + ["C"]
    out.write("# " + " ".join(cols) + "\n")
    for sa, A, sb, B, c in cases:
        f = [f"{sa:02X}"] + [f"{x:0{hexw}X}" for x in A] + [f"{sb:02X}"] + [f"{x:0{hexw}X}" for x in B]
        out.write(" ".join(f) + f" {c:0{cw}X}\n")
    return 0


if __name__ == '__main__':
    sys.exit(main())
