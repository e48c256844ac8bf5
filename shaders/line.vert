#version 330 core
layout(location = 0) in vec3 aPosition;
layout(location = 1) in vec4 aColor;

uniform mat4 uView;
uniform mat4 uProj;

out vec4 vColor;

void main() {
    vColor = aColor;
    gl_Position = uProj * uView * vec4(aPosition, 1.0);
}
