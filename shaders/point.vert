#version 330 core
layout(location = 0) in vec3 aPosition;

uniform mat4 uModel;
uniform mat4 uView;
uniform mat4 uProj;
uniform float uSize;
// uBias pulls points toward the camera by this fraction of their depth so
// points on the visible surface pass the depth test.
// In orthographic views only depth changes, so the point keeps its pixel.
uniform float uBias;
uniform int uOrtho;

void main() {
    vec4 viewPos = uView * uModel * vec4(aPosition, 1.0);
    if (uOrtho == 1) {
        viewPos.z *= (1.0 - uBias);
    } else {
        viewPos.xyz *= (1.0 - uBias);
    }
    gl_Position = uProj * viewPos;
    gl_PointSize = uSize;
}
