/* Stand-in for <GL/gl.h> when the system has none: only the types cudaGL.h uses,
 * with the same ABI (the Khronos headers define both as unsigned int). */
#ifndef CUSHIM_COMPAT_GL_H
#define CUSHIM_COMPAT_GL_H
typedef unsigned int GLuint;
typedef unsigned int GLenum;
#endif
