#version 330 core
uniform vec4 uColor;
out vec4 fragColor;

void main() {
    vec2 d = gl_PointCoord * 2.0 - 1.0;
    float r2 = dot(d, d);
    if (r2 > 1.0) {
        discard;
    }
    // a dark outline so markers read on any shading
    fragColor = r2 > 0.55 ? vec4(0.05, 0.05, 0.05, uColor.a) : uColor;
}
