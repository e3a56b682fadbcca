"""Shared by the seed-002 analysis scripts: the paper's %diff columns and Kendall's tau-b."""
import math
from itertools import combinations

# Table I (m = 5) and Table II (m = 10) of seed 002, %diff against IE
PAPER1 = {'E-IE': 53.93, 'Y-IE': -11.82, 'P-IE': -10.50, 'E-IAY': -10.40, 'Y-IAY': 99.75, 'P-IAY': 125.27,
          'E-IY': -3.40, 'Y-IY': 113.01, 'P-IY': 145.78, 'IE': 0.0, 'E-IP': 19.35, 'Y-IP': 145.05,
          'P-IP': 176.92, 'IAY': 13.59, 'IY': 24.22, 'IP': 52.03, 'RANDOM': 2124.42}
PAPER2 = {'Y-IE': -10.33, 'P-IE': -8.62, 'E-IAY': -6.10, 'E-IY': 8.04, 'E-IP': 29.68, 'IAY': 136.65,
          'IY': 147.77}


def taub(x, y):
    """Kendall's tau-b of two equally long sequences (ties in both are skipped)."""
    c = d = tx = ty = 0
    for i, j in combinations(range(len(x)), 2):
        a = (x[i] > x[j]) - (x[i] < x[j])
        b = (y[i] > y[j]) - (y[i] < y[j])
        if a == 0 and b == 0:
            continue
        if a == 0:
            tx += 1
            continue
        if b == 0:
            ty += 1
            continue
        if a == b:
            c += 1
        else:
            d += 1
    return (c - d) / math.sqrt((c + d + tx) * (c + d + ty))
