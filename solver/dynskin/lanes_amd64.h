// Transposes between four records (one per vector lane) and 4-wide
// vectors (one per field), for the amd64 kernels.

// PAIR loads the two float64 at off in each of the four lanes' records
// (R0, R1, R2, R3), transposed: lane j of lo gets the first of lane j's
// record, lane j of hi the second. It uses ylo (lo may be it) and yt
// (neither lo nor hi) in between, lanes 0 and 2 in ylo, 1 and 3 in yt.
#define PAIR(R0, R1, R2, R3, off, lo, hi, xlo, ylo, xt, yt) \
	VMOVUPD     off(R0), xlo; \
	VINSERTF128 $1, off(R2), ylo, ylo; \
	VMOVUPD     off(R1), xt; \
	VINSERTF128 $1, off(R3), yt, yt; \
	VUNPCKHPD   yt, ylo, hi; \
	VUNPCKLPD   yt, ylo, lo

// UNPAIR stores lo and hi, lane j of each, as the two float64 at off in
// lane j's record (R0, R1, R2, R3): PAIR backwards, through t1 and t2.
#define UNPAIR(R0, R1, R2, R3, off, lo, hi, t1, t2, xt1, xt2) \
	VUNPCKLPD    hi, lo, t1; \
	VUNPCKHPD    hi, lo, t2; \
	VMOVUPD      xt1, off(R0); \
	VMOVUPD      xt2, off(R1); \
	VEXTRACTF128 $1, t1, off(R2); \
	VEXTRACTF128 $1, t2, off(R3)
