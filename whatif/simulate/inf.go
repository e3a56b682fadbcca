package simulate

import "math"

var inf = math.Inf(1)
