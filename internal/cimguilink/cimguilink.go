// Package cimguilink lets binaries that include cimgui-go link on glibc < 2.38.
//
// cimgui-go v1.5.0 ships a prebuilt static library compiled against glibc
// 2.38, which redirects sscanf to __isoc23_sscanf. Debian 12's glibc 2.36
// lacks that symbol, so linking fails. This package defines it as a
// forwarder to vsscanf, which behaves the same for the formats Dear ImGui
// uses (C23 only changed how %b and 0b prefixes are read). Import it for its
// side effect in every package that imports giu, so test binaries link too.
package cimguilink

/*
#include <stdarg.h>
#include <stdio.h>

int __isoc23_sscanf(const char *str, const char *format, ...) {
	va_list ap;
	va_start(ap, format);
	int n = vsscanf(str, format, ap);
	va_end(ap);
	return n;
}
*/
import "C"
