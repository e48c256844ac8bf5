package assets

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestMutSpeed(t *testing.T) {
	seeds := [][]byte{gltfBytes(t, gltfTetra(), ExportMorph, true), gltfBytes(t, gltfRiggedTetra(), ExportSkin, true), gltfBytes(t, gltfTetra(), ExportMorph, false)}
	rng := rand.New(rand.NewPCG(1, 2))
	var worst time.Duration
	var worstIn []byte
	start := time.Now()
	n := 0
	for time.Since(start) < 10*time.Second {
		d := append([]byte(nil), seeds[rng.IntN(3)]...)
		for k := 0; k < 1+rng.IntN(4); k++ {
			i := rng.IntN(len(d))
			switch rng.IntN(3) {
			case 0:
				d[i] = byte(rng.IntN(256))
			case 1:
				d[i] = "0123456789"[rng.IntN(10)]
			case 2:
				d[i] ^= 0x80
			}
		}
		s := time.Now()
		objs, err := readGLTFBytes(d, nil)
		if err == nil {
			for _, o := range objs {
				buildGLTF(o, ExportOptions{})
			}
		}
		if e := time.Since(s); e > worst {
			worst, worstIn = e, d
		}
		n++
	}
	t.Logf("%d execs in 10 s, worst %v", n, worst)
	_ = worstIn
}
