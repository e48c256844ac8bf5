#version 330 core
in vec3 vViewPos;
in vec3 vViewNormal;
in vec3 vColor;

// uMode: 0 smooth shading, 1 flat shading, 2 constant colour (wireframe).
uniform int uMode;
// uUseVertexColor: 1 to take the albedo from the per-vertex colour (heat maps).
uniform int uUseVertexColor;
uniform vec3 uBaseColor;
uniform vec4 uWireColor;
uniform int uOrtho;

out vec4 fragColor;

void main() {
    if (uMode == 2) {
        fragColor = uWireColor;
        return;
    }
    vec3 n = uMode == 1 ? normalize(cross(dFdx(vViewPos), dFdy(vViewPos)))
                        : normalize(vViewNormal);
    vec3 v = uOrtho == 1 ? vec3(0.0, 0.0, 1.0) : normalize(-vViewPos);
    if (dot(n, v) < 0.0) {
        n = -n; // two-sided lighting: back faces are lit like front faces
    }
    vec3 albedo = uUseVertexColor == 1 ? vColor : uBaseColor;
    // A studio rig in view space: key light from the upper left, a cool fill
    // from the right, and a rim, as in Blender's default solid mode.
    vec3 key = normalize(vec3(-0.4, 0.7, 0.6));
    vec3 fill = normalize(vec3(0.6, -0.2, 0.5));
    float diff = 0.75 * max(dot(n, key), 0.0) + 0.3 * max(dot(n, fill), 0.0);
    // Powers by repeated multiplication: llvmpipe evaluates pow() with
    // exp2/log2 per pixel, which showed in profiles.
    float s = max(dot(n, normalize(key + v)), 0.0);
    s *= s; s *= s; s *= s; s *= s; s *= s; // s^32
    float r = 1.0 - max(dot(n, v), 0.0);
    vec3 c = albedo * (0.22 + diff) + vec3(0.25 * s + 0.15 * r * r * r);
    fragColor = vec4(c, 1.0);
}
