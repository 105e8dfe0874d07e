within Modelica;
package Blocks "Signal blocks (bundled subset: interfaces and a few sources)"
  extends Modelica.Icons.Package;

  package Interfaces "Signal connectors"
    extends Modelica.Icons.Package;
    connector RealInput = input Real "Real input signal";
    connector RealOutput = output Real "Real output signal";

    partial block SO "Single output block"
      RealOutput y "Output signal" annotation(Placement(transformation(extent = {{100, -10}, {120, 10}})));
    end SO;
  end Interfaces;

  package Sources "Signal sources"
    extends Modelica.Icons.Package;

    block Constant "Constant output"
      extends Modelica.Blocks.Interfaces.SO;
      parameter Real k(start = 1) "Constant output value";
    equation
      y = k;
    end Constant;

    block Sine "Sine wave starting at startTime"
      extends Modelica.Blocks.Interfaces.SO;
      parameter Real amplitude = 1 "Amplitude of the sine wave";
      parameter Modelica.Units.SI.Frequency f(start = 1) "Frequency";
      parameter Modelica.Units.SI.Angle phase = 0 "Phase at startTime";
      parameter Real offset = 0 "Offset of the output";
      parameter Modelica.Units.SI.Time startTime = 0 "Output = offset before startTime";
    equation
      y = offset + noEvent(if time < startTime then 0 else
        amplitude * sin(2 * Modelica.Constants.pi * f * (time - startTime) + phase));
    end Sine;

    block Step "Step of height at startTime"
      extends Modelica.Blocks.Interfaces.SO;
      parameter Real height = 1 "Height of the step";
      parameter Real offset = 0 "Offset of the output";
      parameter Modelica.Units.SI.Time startTime = 0 "Time of the step";
    equation
      y = offset + noEvent(if time < startTime then 0 else height);
    end Step;
  end Sources;
end Blocks;
