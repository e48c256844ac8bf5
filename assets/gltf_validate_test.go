package assets

import (
	"testing"

	"gallop/assets/gltftest"
)

// validateGLTF runs Khronos' glTF-Validator on path (gltftest.Validate):
// it fails the test on any error or warning and skips it when the
// validator is not installed, unless GALLOP_REQUIRE_VALIDATOR=1.
func validateGLTF(t testing.TB, path string) gltftest.Report {
	t.Helper()
	return gltftest.Validate(t, path)
}
