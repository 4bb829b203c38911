#version 450
// deferred example, shadow map: the mesh writes depth only.
void main() {}
