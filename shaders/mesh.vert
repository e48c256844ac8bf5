#version 330 core
// Mesh vertices in model space; uModel is identity for now but kept so
// objects can carry a transform.
layout(location = 0) in vec3 aPosition;
layout(location = 1) in vec3 aNormal;
layout(location = 2) in vec3 aColor;

uniform mat4 uModel;
uniform mat4 uView;
uniform mat4 uProj;

out vec3 vViewPos;
out vec3 vViewNormal;
out vec3 vColor;

void main() {
    vec4 viewPos = uView * uModel * vec4(aPosition, 1.0);
    vViewPos = viewPos.xyz;
    // aNormal is the sum of the vertex's triangles' area vectors (see
    // package render's frameData): normalised here, (0, 1, 0) when it is
    // zero or not finite.
    float len = length(aNormal);
    vec3 n = len > 0.0 && len < 1e38 ? aNormal / len : vec3(0.0, 1.0, 0.0);
    vViewNormal = mat3(uView * uModel) * n;
    vColor = aColor;
    gl_Position = uProj * viewPos;
}
